import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function findPackageVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      return (require(candidate) as { version: string }).version;
    } catch {
      // Compiled code lives one folder deeper (dist/src); try the next candidate.
    }
  }
  return '0.0.0';
}

export const version = findPackageVersion();
