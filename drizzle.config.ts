import { defineConfig } from 'drizzle-kit';

// drizzle-kit only generates SQL from the schema here; applying it is `npm run db:migrate`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './migrations',
});
