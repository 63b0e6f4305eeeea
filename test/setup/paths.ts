import { join } from 'path';

/** The repository root: the cwd of child processes, and where committed files (README, openapi.json, ...) are read from. */
export const ROOT = join(__dirname, '..', '..');
