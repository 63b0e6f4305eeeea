import { DynamicModule, Global, Inject, Module } from '@nestjs/common';

import { AppEnv, ConfigError, loadEnv } from './env';

/**
 * The one way code reaches configuration: each app gets one frozen AppEnv
 * (`SettingsModule.forRoot`), injected with `@InjectSettings()`. Nothing reads
 * `process.env` after start-up: entry points (server, CLI, cluster primary)
 * validate the environment once with `processSettings()`, and tests build an
 * app from settings they choose (test/setup/create-app.ts `env`).
 */

/** Injection token of an app's settings. */
export const SETTINGS = Symbol('settings');

/** Parameter decorator: `@InjectSettings() settings: AppEnv`. */
export const InjectSettings = (): ParameterDecorator => Inject(SETTINGS);

/** Provides one app's settings to every module of it. */
@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: AppEnv): DynamicModule {
    return { module: SettingsModule, providers: [{ provide: SETTINGS, useValue: settings }], exports: [SETTINGS] };
  }
}

let current: AppEnv | undefined;

/**
 * This process's settings: `process.env` validated at the first call; every
 * later call returns the same frozen object.
 *
 * @throws ConfigError on a bad value (see loadEnv)
 */
export function processSettings(): AppEnv {
  return (current ??= loadEnv(process.env));
}

/**
 * processSettings for process entry points: on a bad value, prints the one
 * line to stderr and exits 1 (no stack).
 */
export function processSettingsOrExit(): AppEnv {
  try {
    return processSettings();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(error.message + '\n');
    process.exit(1);
  }
}
