import { Global, Module } from '@nestjs/common';

import { ApiKeyCache } from './api-key.cache';
import { AuthRepository } from './auth.repository';
import { LastUsedRecorder } from './last-used';

/** API keys as the guard and the key routes need them: lookup, the cache kept honest by LISTEN/NOTIFY, `last_used_at`. */
@Global()
@Module({ providers: [AuthRepository, ApiKeyCache, LastUsedRecorder], exports: [AuthRepository, ApiKeyCache, LastUsedRecorder] })
export class AuthModule {}
