import type { Page } from 'playwright-core';

/**
 * The values a screen cuts, each as "where: text": in the main content, a table cell, a list
 * item, a term or its value, a field's label (or anything inside one) whose text runs past its
 * box where the box hides it (`overflow` other than visible, an ellipsis, a clamp to some
 * lines), across or down; a row laid out as a card whose values run out of it (under the next);
 * and a table whose box scrolls sideways, so that part of each row is out of sight. Nothing a
 * person reads to tell one row from another is to be hidden: it wraps, or takes two lines.
 *
 * Left out: what is hidden on purpose from the eye (`.visually-hidden`, `display: none`), form
 * fields (a field's own text scrolls inside it by design), and a picture's box.
 */
export function cutValues(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const cut: string[] = [];
    const shown = (el: Element) => {
      if (el.closest('.visually-hidden, [hidden], [aria-hidden="true"]')) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0;
    };
    const where = (el: Element) => {
      const cell = el.closest('td, th, li, dd, dt, label, .field-label') ?? el;
      const named = cell.className
        ? `.${String(cell.className).trim().split(/\s+/).join('.')}`
        : '';
      return `${cell.tagName.toLowerCase()}${named}`;
    };
    const skip = 'input, select, textarea, img, svg, canvas, video, button[role="switch"]';
    const seen = new Set<Element>();
    const cells = 'main td, main th, main li, main dd, main dt, main label, main .field-label';
    for (const cell of document.querySelectorAll(cells)) {
      for (const el of [cell, ...cell.querySelectorAll('*')]) {
        if (seen.has(el)) continue;
        seen.add(el);
        if (el.matches(skip) || el.closest('svg')) continue;
        if (!shown(el)) continue;
        const s = getComputedStyle(el);
        const across =
          (s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') &&
          el.scrollWidth > el.clientWidth + 1;
        const down =
          (s.overflowY !== 'visible' || s.webkitLineClamp !== 'none') &&
          el.scrollHeight > el.clientHeight + 1;
        if (across || down) {
          cut.push(
            `${where(el)}${across ? ' (across)' : ' (down)'}: ${(el.textContent ?? '').trim().slice(0, 60)}`,
          );
        }
      }
    }
    // A row laid out as a card (a phone's grid or flex) whose values run out of it, under the
    // next: not clipped, but as hidden.
    for (const row of document.querySelectorAll('main tr')) {
      if (!shown(row) || getComputedStyle(row).display === 'table-row') continue;
      if (row.scrollHeight > row.clientHeight + 1) {
        cut.push(
          `${where(row)} (runs out of its row): ${(row.textContent ?? '').trim().slice(0, 60)}`,
        );
      }
    }
    for (const table of document.querySelectorAll('main table')) {
      if (!shown(table)) continue;
      let box = table.parentElement;
      while (box && box.tagName !== 'MAIN') {
        const s = getComputedStyle(box);
        if (s.overflowX !== 'visible' && box.scrollWidth > box.clientWidth + 1) {
          const name = table.getAttribute('aria-label') ?? table.className;
          cut.push(`table ${name} scrolls sideways: ${box.scrollWidth} in ${box.clientWidth}`);
          break;
        }
        box = box.parentElement;
      }
    }
    return cut;
  });
}
