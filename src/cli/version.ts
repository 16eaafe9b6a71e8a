import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'visibility-warehouse' && pkg.version) return pkg.version;
    } catch {
      // try the next layout (src/ under tsx, dist/src/ after the build)
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
