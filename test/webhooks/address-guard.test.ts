import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, createServer, request, type RequestOptions, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, refusedAddressReason } from '../../src/webhooks/address-guard.js';

/**
 * Every refused range with a literal of its own, IPv4 and IPv6 and the IPv6 forms that carry an
 * IPv4 address; then the guard on real requests to a server on this machine. Only `localhost` is
 * resolved (from the hosts file), so nothing leaves the machine.
 */

const refused: [address: string, reason: string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fd00:ec2::254', 'private'], // the IPv6 cloud metadata address
  ['fec0::1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local (includes cloud metadata)'],
  ['169.254.0.1', 'link-local (includes cloud metadata)'],
  ['fe80::1', 'link-local (includes cloud metadata)'],
  ['fe80::1%eth0', 'link-local (includes cloud metadata)'],
  ['febf::1', 'link-local (includes cloud metadata)'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.8', 'reserved'],
  ['100::1', 'reserved'],
  ['64:ff9b:1::a00:1', 'reserved'],
  ['4000::1', 'reserved'], // outside 2000::/3, where no public unicast is assigned
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['2001:2::1', 'benchmarking'],
  // IPv6 forms that carry an IPv4 address are judged as that address.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local (includes cloud metadata)'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:0:192.168.0.1', 'private'],
  ['::127.0.0.1', 'loopback'],
  ['::a00:1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local (includes cloud metadata)'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link-local (includes cloud metadata)'],
  ['2002:c0a8:101:1::1', 'private'],
  // Not an address at all: refused rather than taken for a public one.
  ['localhost', 'not an IP address'],
  ['', 'not an IP address'],
];

const allowed = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '169.253.255.255',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::1.1.1.1',
  '2002:808:808::1',
];

describe('refusedAddressReason', () => {
  it.each(refused)('refuses %s as %s', (address, reason) => {
    expect(refusedAddressReason(address)).toBe(reason);
  });

  it.each(allowed)('allows %s', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });
});

describe('checkWebhookUrl', () => {
  it('refuses a name that resolves to a refused address', async () => {
    await expect(checkWebhookUrl('http://localhost:1234/', false)).rejects.toThrow(
      'localhost resolves to 127.0.0.1, a loopback address; set WEBHOOK_ALLOW_PRIVATE=true to allow it',
    );
  });

  it('refuses a refused IP literal, in any of its spellings', async () => {
    await expect(checkWebhookUrl('http://[::1]/', false)).rejects.toThrow('::1 is a loopback address; set WEBHOOK_ALLOW_PRIVATE=true to allow it');
    await expect(checkWebhookUrl('http://169.254.169.254/latest/meta-data', false)).rejects.toThrow(
      '169.254.169.254 is a link-local (includes cloud metadata) address',
    );
    await expect(checkWebhookUrl('http://0.0.0.0/', false)).rejects.toThrow('0.0.0.0 is an unspecified address');
    // The URL parser turns these into 127.0.0.1 and ::ffff:7f00:1 before the check sees them.
    await expect(checkWebhookUrl('http://2130706433/', false)).rejects.toThrow('127.0.0.1 is a loopback address');
    await expect(checkWebhookUrl('https://0x7f.1/', false)).rejects.toThrow('127.0.0.1 is a loopback address');
    await expect(checkWebhookUrl('http://[::ffff:127.0.0.1]/', false)).rejects.toThrow('::ffff:7f00:1 is a loopback address');
    await expect(checkWebhookUrl('http://[fd00:ec2::254]/', false)).rejects.toMatchObject({ code: 'EWEBHOOKADDRESS' });
  });

  it('refuses other schemes, credentials and what is not a URL, without quoting the URL', async () => {
    await expect(checkWebhookUrl('ftp://files.example.com/hook', false)).rejects.toThrow('a webhook URL must use http: or https:, not ftp:');
    await expect(checkWebhookUrl('file:///etc/passwd', false)).rejects.toThrow('a webhook URL must use http: or https:, not file:');
    await expect(checkWebhookUrl('http://user:pass@example.com/', false)).rejects.toThrow('a webhook URL must not carry a username or password');
    await expect(checkWebhookUrl('http://user:hunter2@example.com/', false)).rejects.not.toThrow('hunter2');
    await expect(checkWebhookUrl('https://token-only@example.com/', false)).rejects.toThrow('a webhook URL must not carry a username or password');
    await expect(checkWebhookUrl('example.com/hook?token=s3cret', false)).rejects.toThrow('a webhook URL must be an absolute http: or https: URL');
  });

  it('allows a private address when WEBHOOK_ALLOW_PRIVATE is set', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:9/', true)).href).toBe('http://127.0.0.1:9/');
    expect((await checkWebhookUrl('http://localhost:1234/hook', true)).href).toBe('http://localhost:1234/hook');
    expect((await checkWebhookUrl('https://[::1]/', true)).hostname).toBe('[::1]');
  });

  it('allows a public IP literal', async () => {
    expect((await checkWebhookUrl('https://1.1.1.1/hook', false)).href).toBe('https://1.1.1.1/hook');
    expect((await checkWebhookUrl('https://[2606:4700:4700::1111]/hook', false)).hostname).toBe('[2606:4700:4700::1111]');
  });
});

describe('guardedLookup', () => {
  const lookupOnce = (lookup: LookupFunction, hostname: string, options: LookupOptions) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) => {
      lookup(hostname, options, (error, address, family) => resolve({ error, address, family }));
    });

  it('answers in the shape it was asked for', async () => {
    expect(await lookupOnce(guardedLookup(true), 'localhost', { all: true })).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }], family: undefined });
    expect(await lookupOnce(guardedLookup(true), 'localhost', {})).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await lookupOnce(guardedLookup(true), 'localhost', { family: 4 })).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });

  it('refuses in either shape', async () => {
    for (const options of [{ all: true }, {}] satisfies LookupOptions[]) {
      const { error } = await lookupOnce(guardedLookup(false), 'localhost', options);
      expect(error).toMatchObject({
        code: 'EWEBHOOKADDRESS',
        message: 'localhost resolves to 127.0.0.1, a loopback address; set WEBHOOK_ALLOW_PRIVATE=true to allow it',
      });
    }
  });

  describe('on a real request', () => {
    let server: Server;
    let port: number;
    let reached = 0;

    beforeAll(async () => {
      server = createServer((_request, response) => {
        reached += 1;
        response.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    /** The request's status or error code, and the options each call of `lookup` was given. */
    // http.request hands autoSelectFamily on to the socket; @types/node 20 leaves it out of RequestOptions.
    function send(options: RequestOptions & { autoSelectFamily?: boolean }, lookup: LookupFunction) {
      const calls: LookupOptions[] = [];
      const spied: LookupFunction = (hostname, lookupOptions, callback) => {
        calls.push({ ...lookupOptions });
        lookup(hostname, lookupOptions, callback);
      };
      return new Promise<{ outcome: number | string | undefined; calls: LookupOptions[] }>((resolve) => {
        // A fresh connection each time unless a test brings an agent: a pooled one skips the lookup.
        const outgoing = request({ port, path: '/hook', method: 'POST', agent: false, ...options, lookup: spied }, (response) => {
          response.resume();
          response.on('end', () => resolve({ outcome: response.statusCode, calls }));
        });
        outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: error.code, calls }));
        outgoing.end('{}');
      });
    }

    // Node asks for all addresses when it may try several (autoSelectFamily), for one otherwise.
    for (const autoSelectFamily of [true, false]) {
      it(`refuses a name of a refused address before connecting (autoSelectFamily ${autoSelectFamily})`, async () => {
        const before = reached;
        const { outcome, calls } = await send({ host: 'localhost', autoSelectFamily }, guardedLookup(false));
        expect(outcome).toBe('EWEBHOOKADDRESS');
        expect(calls.map(({ all }) => all === true)).toEqual([autoSelectFamily]);
        expect(reached).toBe(before);
      });

      it(`connects to the checked address when private addresses are allowed (autoSelectFamily ${autoSelectFamily})`, async () => {
        const before = reached;
        const { outcome, calls } = await send({ host: 'localhost', autoSelectFamily }, guardedLookup(true));
        expect(outcome).toBe(200);
        expect(calls.map(({ all }) => all === true)).toEqual([autoSelectFamily]);
        expect(reached).toBe(before + 1);
      });
    }

    it('is not asked again for a connection an agent keeps alive, so webhooks need an agent of their own', async () => {
      const agent = new Agent({ keepAlive: true });
      try {
        const before = reached;
        expect((await send({ host: 'localhost', agent }, guardedLookup(true))).outcome).toBe(200);
        const { outcome, calls } = await send({ host: 'localhost', agent }, guardedLookup(false));
        expect(calls).toEqual([]);
        expect(outcome).toBe(200);
        expect(reached).toBe(before + 2);
      } finally {
        agent.destroy();
      }
    });

    it('is not asked about an IP literal, which the caller must check itself', async () => {
      const before = reached;
      const { outcome, calls } = await send({ host: '127.0.0.1' }, guardedLookup(false));
      expect(calls).toEqual([]);
      expect(outcome).toBe(200);
      expect(reached).toBe(before + 1);
      // What a sender does for such a host, and what registering the endpoint does.
      expect(refusedAddressReason('127.0.0.1')).toBe('loopback');
      await expect(checkWebhookUrl(`http://127.0.0.1:${port}/hook`, false)).rejects.toMatchObject({ code: 'EWEBHOOKADDRESS' });
    });
  });
});
