// Debian's Chromium, launched exactly as the browser tests launch it.
export { chromiumPath, launchChromium } from '../../apps/web/e2e/support/browser';
