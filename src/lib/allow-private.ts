import { BlockList, isIP } from 'node:net';

export interface PrivateAllowance {
  all: boolean;
  list: BlockList;
}

/** Parses WEBHOOK_ALLOW_PRIVATE: comma-separated CIDRs (or single addresses), or `*`. Throws on a bad entry. */
export function parseAllowPrivate(value: string | undefined): PrivateAllowance {
  const list = new BlockList();
  let all = false;
  for (const raw of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (raw === '*') {
      all = true;
      continue;
    }
    const [net, bits, extra] = raw.split('/');
    const family = isIP(net);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (!family || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
      throw new Error(`WEBHOOK_ALLOW_PRIVATE: "${raw}" is not a CIDR range or an address`);
    }
    list.addSubnet(net, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { all, list };
}

