import { describe, expect, it } from 'vitest';
import { checkGitDestination, DEFAULT_GIT_POLICY, GIT_FETCH_FAILED, gitUrlProblem, parseGitPolicy, type GitPolicy } from './git-destination.js';

const withHttp: GitPolicy = { ...DEFAULT_GIT_POLICY, protocols: ['https', 'http'] };
const resolvesTo = (...addresses: string[]) => async () => addresses.map((address) => ({ address }));

describe('gitUrlProblem (the submit route, no network)', () => {
  it.each([
    ['git+http://127.0.0.1:8080/anon.git', DEFAULT_GIT_POLICY, /git over http is not allowed/],
    ['ssh://git@repo.example.test/team/x.git', DEFAULT_GIT_POLICY, /git over ssh is not allowed/],
    ['git@repo.example.test:team/x.git', DEFAULT_GIT_POLICY, /git over ssh is not allowed/],
    ['git://repo.example.test/x.git', DEFAULT_GIT_POLICY, /git over git is not allowed/],
    ['https://127.0.0.1/x.git', DEFAULT_GIT_POLICY, /public address/],
    ['https://2130706433/x.git', DEFAULT_GIT_POLICY, /public address/],
    ['https://[::1]/x.git', DEFAULT_GIT_POLICY, /public address/],
    ['https://169.254.169.254/latest/meta-data', DEFAULT_GIT_POLICY, /public address/],
    ['https://[fd00::5]/x.git', DEFAULT_GIT_POLICY, /public address/],
    ['http://10.1.2.3/api/delete?user=admin#', withHttp, /public address/],
    ['https://deploy:hunter2@repo.example.test/x.git', DEFAULT_GIT_POLICY, /user name or password/],
  ])('%s is refused', (url, policy, message) => {
    expect(gitUrlProblem(url, policy)).toMatch(message);
  });

  it('lets host names through to the worker, and private literals when the operator allows them', () => {
    expect(gitUrlProblem('https://repo.example.test/team/x.git', DEFAULT_GIT_POLICY)).toBeUndefined();
    expect(gitUrlProblem('https://10.1.2.3/x.git', { ...DEFAULT_GIT_POLICY, allowPrivate: true })).toBeUndefined();
    expect(gitUrlProblem('https://10.1.2.3/x.git', { ...DEFAULT_GIT_POLICY, hosts: ['10.1.2.3'] })).toBeUndefined();
    expect(gitUrlProblem('file:///srv/repos/x.git', DEFAULT_GIT_POLICY)).toBeUndefined();
  });
});

describe('checkGitDestination (the worker, before git runs)', () => {
  it('refuses a host name with any non-public address, and pins an allowed one', async () => {
    await expect(checkGitDestination('https://repo.example.test/x.git', DEFAULT_GIT_POLICY, resolvesTo('10.0.0.5'))).resolves.toMatchObject({ ok: false, message: expect.stringMatching(/public address/) });
    // One private answer among the addresses is enough: git could use any of them.
    await expect(checkGitDestination('https://repo.example.test/x.git', DEFAULT_GIT_POLICY, resolvesTo('127.0.0.1', '::1'))).resolves.toMatchObject({ ok: false });
    await expect(checkGitDestination('https://git.internal.test:8443/x.git', { ...DEFAULT_GIT_POLICY, hosts: ['git.internal.test'] }, resolvesTo('10.0.0.5'))).resolves.toEqual({
      ok: true,
      git: { protocols: ['https'], pin: { host: 'git.internal.test', port: 8443, address: '10.0.0.5' } },
    });
  });

  it('says only that the fetch failed when the name does not resolve, and keeps file:// to the file transport', async () => {
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(checkGitDestination('https://nowhere.invalid/x.git', DEFAULT_GIT_POLICY, failing)).resolves.toEqual({ ok: false, message: GIT_FETCH_FAILED });
    await expect(checkGitDestination('file:///srv/repos/x.git', DEFAULT_GIT_POLICY)).resolves.toEqual({ ok: true, git: { protocols: ['file'] } });
  });
});

describe('parseGitPolicy', () => {
  it('reads the operator settings and names a wrong value', () => {
    expect(parseGitPolicy({})).toEqual(DEFAULT_GIT_POLICY);
    expect(parseGitPolicy({ SVC_GIT_PROTOCOLS: 'https, ssh', SVC_GIT_ALLOW_PRIVATE: '1', SVC_GIT_HOSTS: 'Git.Internal.test' })).toEqual({
      protocols: ['https', 'ssh'],
      allowPrivate: true,
      hosts: ['git.internal.test'],
    });
    expect(parseGitPolicy({ SVC_GIT_PROTOCOLS: 'https,ext' })).toEqual({ error: expect.stringMatching(/SVC_GIT_PROTOCOLS must list some of https, ssh, git, http/) });
    expect(parseGitPolicy({ SVC_GIT_ALLOW_PRIVATE: 'yes' })).toEqual({ error: expect.stringMatching(/SVC_GIT_ALLOW_PRIVATE must be 0 or 1/) });
  });
});
