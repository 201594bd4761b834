import { API_TITLE } from './api-info.js';

/**
 * The docs page's own name and marks, in place of Swagger UI's: the browser tab's title, the top
 * bar's wordmark and the favicon. All of them are served with the page (the wordmark inline as a
 * data: image, the favicon from /docs/static/theme), so the page needs no network beyond this server.
 */
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** White on Swagger UI's dark top bar; system fonts only (an image cannot load web fonts). */
const WORDMARK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="40" viewBox="0 0 420 40" role="img">
<title>${escapeXml(API_TITLE)}</title>
<rect x="2" y="6" width="28" height="28" rx="6" fill="#49cc90"/>
<path d="M9 25l6-7 4 4 6-8" fill="none" stroke="#1b1b1b" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>
<text x="42" y="27" fill="#ffffff" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="20" font-weight="600">${escapeXml(API_TITLE)}</text>
</svg>`;

const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#49cc90"/>
<path d="M7 22l7-8 5 5 7-9" fill="none" stroke="#1b1b1b" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/>
</svg>`;

export const DOCS_BRANDING = {
  logo: { type: 'image/svg+xml', content: Buffer.from(WORDMARK_SVG) },
  theme: {
    title: API_TITLE,
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }],
  },
};
