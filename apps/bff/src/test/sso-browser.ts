// A tiny cookie-keeping "browser" for single sign-on tests: it follows redirects across the
// relying party and the identity provider over real HTTP, submits their HTML forms, and can
// stop just before a redirect (e.g. to the RP's callback) so a test can tamper with it.
//
// Cookies: one jar per host:port (a real browser shares one jar across the ports of a host),
// with Path, Max-Age/Expires and SameSite honoured; Domain and Secure are ignored. A request
// is cross-site when the page that started it, or any URL earlier in its redirect chain, is
// on another site (scheme + host; the last two labels of a name) than the request: then
// Strict cookies stay home and Lax ones go only with GET, as in Chromium.

export interface BrowserPage {
  url: string;
  status: number;
  headers: Headers;
  body: string;
  /** Every URL requested on the way, in order, ending with `url`. */
  visited: string[];
}

/** Where a navigation stopped: the redirect target it did NOT request. */
export interface StoppedRedirect {
  url: string;
  visited: string[];
}

export interface NavigationInit {
  method?: 'GET' | 'POST';
  form?: Record<string, string> | URLSearchParams;
  headers?: Record<string, string>;
  /** The page whose link or form started this navigation (for SameSite); none = typed URL. */
  initiator?: string;
}

export interface FormChoice {
  /** The visible text of the button to press; by default the form holding a password field, else the first form. */
  button?: string;
  /** Values typed into the form's fields (added to, or replacing, its own inputs). */
  fields?: Record<string, string>;
}

interface Cookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number;
  sameSite: 'strict' | 'lax' | 'none';
}

const MAX_HOPS = 20;

export class SsoBrowser {
  readonly #jars = new Map<string, Cookie[]>();

  /** The Cookie header this browser would send to `url` (same-site), e.g. for supertest. */
  cookieHeader(url: string | URL): string {
    return this.#cookiesFor(new URL(url), { crossSite: false, method: 'GET' });
  }

  /** Keep cookies from a response the test made itself (e.g. with supertest). */
  storeCookies(url: string | URL, setCookie: readonly string[]): void {
    this.#store(new URL(url), setCookie);
  }

  /** Request `url` and follow every redirect, across hosts; the page it ends on. */
  async follow(url: string | URL, init: NavigationInit = {}): Promise<BrowserPage> {
    const result = await this.#navigate(new URL(url), init);
    if ('status' in result) return result;
    throw new Error(`unexpected stop at ${result.url}`);
  }

  /** Like `follow`, but stops before requesting a redirect target that starts with `prefix`. */
  async followUntil(
    url: string | URL,
    prefix: string,
    init: NavigationInit = {},
  ): Promise<StoppedRedirect> {
    return stopped(await this.#navigate(new URL(url), init, prefix), prefix);
  }

  /** Submit a form on `page` as a person would, then follow where it leads. */
  async submitForm(page: BrowserPage, choice: FormChoice = {}): Promise<BrowserPage> {
    return this.follow(...formNavigation(page, choice));
  }

  async submitFormUntil(
    page: BrowserPage,
    prefix: string,
    choice: FormChoice = {},
  ): Promise<StoppedRedirect> {
    const [action, init] = formNavigation(page, choice);
    return this.followUntil(action, prefix, init);
  }

  /** Fill the identity provider's sign-in form on `page` and follow on. */
  async signInAtProvider(page: BrowserPage, email: string, password: string): Promise<BrowserPage> {
    return this.submitForm(page, { fields: { email, password } });
  }

  /** Sign in at the provider and stop before the redirect to `prefix` (the RP's callback). */
  async signInAtProviderUntil(
    page: BrowserPage,
    email: string,
    password: string,
    prefix: string,
  ): Promise<StoppedRedirect> {
    return this.submitFormUntil(page, prefix, { fields: { email, password } });
  }

  async #navigate(
    start: URL,
    init: NavigationInit,
    stopPrefix?: string,
  ): Promise<BrowserPage | StoppedRedirect> {
    const visited: string[] = [];
    const chain = init.initiator ? [init.initiator] : [];
    let url = start;
    let method = init.method ?? 'GET';
    let body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      const crossSite = chain.some((earlier) => siteOf(new URL(earlier)) !== siteOf(url));
      const headers: Record<string, string> = hop === 0 ? { ...init.headers } : {};
      const cookie = this.#cookiesFor(url, { crossSite, method });
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(url, { method, headers, body, redirect: 'manual' });
      visited.push(url.href);
      this.#store(url, response.headers.getSetCookie());
      chain.push(url.href);

      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        const next = new URL(location, url);
        if (stopPrefix !== undefined && next.href.startsWith(stopPrefix))
          return { url: next.href, visited };
        if (response.status !== 307 && response.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }

      const text = await response.text();
      const page = {
        url: url.href,
        status: response.status,
        headers: response.headers,
        body: text,
        visited,
      };
      // What a browser's script would do on oidc-provider's self-submitting form_post page.
      if (/document\.forms\[0\]\.submit\(\)/.test(text)) {
        const [action, form] = formNavigation(page, {});
        url = new URL(action);
        method = 'POST';
        body = new URLSearchParams(form.form).toString();
        continue;
      }
      return page;
    }
    throw new Error(`more than ${MAX_HOPS} redirects from ${start.href}`);
  }

  #cookiesFor(url: URL, context: { crossSite: boolean; method: string }): string {
    const now = Date.now();
    const jar = (this.#jars.get(url.host) ?? []).filter((cookie) => cookie.expiresAt > now);
    this.#jars.set(url.host, jar);
    return jar
      .filter((cookie) => pathMatches(url.pathname, cookie.path))
      .filter(
        (cookie) =>
          !context.crossSite ||
          cookie.sameSite === 'none' ||
          (cookie.sameSite === 'lax' && context.method === 'GET'),
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  #store(url: URL, setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = {
        name: pair.slice(0, eq).trim(),
        value: pair.slice(eq + 1).trim(),
        path: defaultPath(url),
        expiresAt: Number.POSITIVE_INFINITY,
        sameSite: 'lax',
      };
      let maxAgeSeen = false;
      for (const attribute of attributes) {
        const [rawKey = '', ...rest] = attribute.split('=');
        const key = rawKey.trim().toLowerCase();
        const value = rest.join('=').trim();
        if (key === 'path' && value.startsWith('/')) cookie.path = value;
        if (key === 'max-age') {
          maxAgeSeen = true;
          cookie.expiresAt = Date.now() + Number(value) * 1000;
        }
        if (key === 'expires' && !maxAgeSeen) cookie.expiresAt = Date.parse(value);
        if (key === 'samesite') {
          const mode = value.toLowerCase();
          if (mode === 'strict' || mode === 'lax' || mode === 'none') cookie.sameSite = mode;
        }
      }
      const jar = (this.#jars.get(url.host) ?? []).filter(
        (kept) => kept.name !== cookie.name || kept.path !== cookie.path,
      );
      // A past expiry (or Max-Age=0) is how a server deletes a cookie.
      if (!(cookie.expiresAt <= Date.now())) jar.push(cookie);
      this.#jars.set(url.host, jar);
    }
  }
}

function stopped(result: BrowserPage | StoppedRedirect, prefix: string): StoppedRedirect {
  if (!('status' in result)) return result;
  const title = /<title>([^<]*)<\/title>/i.exec(result.body)?.[1] ?? '';
  throw new Error(
    `expected a redirect to ${prefix}, ended at ${result.url} (${result.status} "${title}") via ${result.visited.join(' -> ')}`,
  );
}

function formNavigation(page: BrowserPage, choice: FormChoice): [string, NavigationInit] {
  const forms = parseForms(page.body);
  let form = forms.find((candidate) => /type="password"/i.test(candidate.html)) ?? forms[0];
  let pressed: [string, string] | undefined;
  if (choice.button !== undefined) {
    const button = parseButtons(page.body).find((candidate) => candidate.text === choice.button);
    if (!button) throw new Error(`no "${choice.button}" button on ${page.url}`);
    form = forms.find((candidate) =>
      button.form
        ? candidate.id === button.form
        : candidate.start < button.at && button.at < candidate.end,
    );
    if (button.name) pressed = [button.name, button.value];
  }
  if (!form) throw new Error(`no form on ${page.url} (${page.status})`);
  const fields = new URLSearchParams(form.inputs);
  for (const [name, value] of Object.entries(choice.fields ?? {})) fields.set(name, value);
  if (pressed) fields.set(...pressed);
  return [
    new URL(form.action || page.url, page.url).href,
    { method: form.method === 'get' ? 'GET' : 'POST', form: fields, initiator: page.url },
  ];
}

interface ParsedForm {
  id: string | undefined;
  action: string;
  method: string;
  inputs: [string, string][];
  html: string;
  start: number;
  end: number;
}

function parseForms(html: string): ParsedForm[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const attributes = parseAttributes(match[1] ?? '');
    const inner = match[2] ?? '';
    const inputs = [...inner.matchAll(/<input\b([^>]*)>/gi)]
      .map((input) => parseAttributes(input[1] ?? ''))
      .filter((input) => input.name !== undefined && input.type !== 'submit')
      .map((input): [string, string] => [input.name ?? '', input.value ?? '']);
    const start = match.index ?? 0;
    return {
      id: attributes.id,
      action: attributes.action ?? '',
      method: (attributes.method ?? 'get').toLowerCase(),
      inputs,
      html: match[0],
      start,
      end: start + match[0].length,
    };
  });
}

function parseButtons(html: string) {
  return [...html.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)].map((match) => {
    const attributes = parseAttributes(match[1] ?? '');
    return {
      text: decodeHtml((match[2] ?? '').replace(/<[^>]*>/g, '')).trim(),
      name: attributes.name,
      value: attributes.value ?? '',
      form: attributes.form,
      at: match.index ?? 0,
    };
  });
}

function parseAttributes(source: string): Record<string, string | undefined> {
  const attributes: Record<string, string | undefined> = {};
  for (const match of source.matchAll(
    /([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g,
  )) {
    const name = (match[1] ?? '').toLowerCase();
    attributes[name] = decodeHtml(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

function decodeHtml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, code: string) => {
    if (code[0] === '#') {
      const point =
        code[1] === 'x' || code[1] === 'X'
          ? Number.parseInt(code.slice(2), 16)
          : Number(code.slice(1));
      return String.fromCodePoint(point);
    }
    return named[code.toLowerCase()] ?? entity;
  });
}

function siteOf(url: URL): string {
  const host = url.hostname;
  const isAddress = /^[\d.]+$/.test(host) || host.startsWith('[');
  return `${url.protocol}//${isAddress ? host : host.split('.').slice(-2).join('.')}`;
}

function defaultPath(url: URL): string {
  const path = url.pathname;
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}
