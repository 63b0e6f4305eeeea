import { isPublicAddress } from './webhook-url';

/** D38: only globally reachable unicast passes, for a webhook url's host and for every address a host name resolves to at delivery. */
describe('isPublicAddress', () => {
  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '::ffff:5db8:d70e'])('passes %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '255.255.255.255',
    '192.0.2.1',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '2001:db8::1',
    '2001::1',
    '2002:7f00:1::',
    // Outside 2000::/3, which ipaddr.js calls plain unicast, and the IPv4-compatible forms.
    '::2',
    '::127.0.0.1',
    '::7f00:1',
    '::808:808',
    '4000::1',
    '100::1',
    '64:ff9b::808:808',
    '8000::1',
    'e000::1',
    '3fff::1',
    'localhost',
    '',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
