/** The config's `cluster` section: its schema, VWH_CLUSTER_URL, and the password never shown (redactUrl, redact). */
import { describe, expect, it } from 'vitest';
import { ClusterSection, clusterSettings, redactUrl, urlPassword } from '../../src/core/cluster-config.js';
import { SyncConfig } from '../../src/core/config.js';
import { redact, VwhError } from '../../src/core/errors.js';

describe('redactUrl', () => {
  it.each([
    ['postgres://vwh:s3cret@db.internal:5432/vwh', 'postgres://vwh:***@db.internal:5432/vwh'],
    [
      'postgresql://vwh:p%40ss%3Aword@10.0.0.5/vwh?sslmode=require',
      'postgresql://vwh:***@10.0.0.5/vwh?sslmode=require',
    ],
    ['postgres://db.internal/vwh?user=vwh&password=s3cret', 'postgres://db.internal/vwh?user=vwh&password=***'],
    ['postgres://vwh@db.internal/vwh', 'postgres://vwh@db.internal/vwh'],
    ['not a url //vwh:s3cret@host', 'not a url //vwh:***@host'],
  ])('%s -> %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
    expect(redactUrl(url)).not.toMatch(/s3cret|p%40ss/);
  });

  it('reads the password to register as a secret, percent-decoded', () => {
    expect(urlPassword('postgres://vwh:p%40ss@h/db')).toBe('p@ss');
    expect(urlPassword('postgres://h/db?password=x1')).toBe('x1');
    expect(urlPassword('postgres://vwh@h/db')).toBeUndefined();
  });

  it('redact() removes a connection string password from any message', () => {
    expect(redact('connect postgres://vwh:hunter2-long@h:5432/x failed')).toBe(
      'connect postgres://vwh:***@h:5432/x failed',
    );
  });
});

describe('the cluster section', () => {
  it('is validated with the config: a URL that is not PostgreSQL, a missing dataDir, an unknown field', () => {
    const issues = (value: unknown) =>
      SyncConfig.safeParse({ cluster: value }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ dataDir: '/srv/vwh', url: 'mysql://a/b' })).toEqual([
      'cluster.url: must be a PostgreSQL URL such as postgres://vwh@db.internal:5432/vwh',
    ]);
    expect(issues({ url: 'postgres://h/db' })?.[0]).toMatch(/^cluster\.dataDir: /);
    expect(issues({ dataDir: '/d', leaseSecs: 5 })?.[0]).toMatch(/leaseSecs/);
    expect(ClusterSection.safeParse({ dataDir: '/d', leaseSeconds: 2 }).success).toBe(false);
  });

  it('takes its URL from VWH_CLUSTER_URL when the config has none, and its defaults', () => {
    const settings = clusterSettings({ dataDir: '/d' }, { VWH_CLUSTER_URL: 'postgres://vwh:pw-long-enough@h/db' });
    expect(settings).toEqual({
      url: 'postgres://vwh:pw-long-enough@h/db',
      dataDir: '/d',
      leaseSeconds: 60,
      heartbeatSeconds: 15,
      retryLimit: 3,
      retryDelaySeconds: 5,
      maintenanceSeconds: 30,
      pollSeconds: 2,
    });
    // the password is now a registered secret: gone from any message, even outside a URL
    expect(redact('auth failed for pw-long-enough')).not.toContain('pw-long-enough');
    expect(clusterSettings(undefined, {})).toBeUndefined();
  });

  it('refuses no URL at all, a bad VWH_CLUSTER_URL and a heartbeat slower than half the lease (exit 64)', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return [(error as VwhError).exitCode, (error as VwhError).message];
      }
      return undefined;
    };
    expect(code(() => clusterSettings({ dataDir: '/d' }, {}))?.[0]).toBe(64);
    expect(code(() => clusterSettings({ dataDir: '/d' }, { VWH_CLUSTER_URL: 'http://x:pw@h' }))).toEqual([
      64,
      'VWH_CLUSTER_URL: must be a PostgreSQL URL such as postgres://vwh@db.internal:5432/vwh',
    ]);
    expect(
      code(() => clusterSettings({ dataDir: '/d', url: 'postgres://h/d', leaseSeconds: 10, heartbeatSeconds: 6 }))?.[0],
    ).toBe(64);
    expect(new VwhError('CLUSTER_UNREACHABLE', 'x').exitCode).toBe(1);
  });
});
