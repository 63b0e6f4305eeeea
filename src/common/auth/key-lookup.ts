import { hashApiKey } from './api-key';
import type { AuthRepository, StoredApiKey } from './auth.repository';

const looked = new WeakMap<object, Promise<StoredApiKey | null>>();

/**
 * The stored record of the key `request` carries, looked up once per request:
 * the rate limiter (which counts per key) and the API-key guard share it.
 */
export function findRequestKey(request: object, keys: AuthRepository, key: string): Promise<StoredApiKey | null> {
  let found = looked.get(request);
  if (!found) {
    found = keys.findByHash(hashApiKey(key));
    looked.set(request, found);
  }
  return found;
}
