import type { InboxList } from '../api/get-inbox';
import type { InboxGroupKey } from '../inbox-search';
import { inboxGroups } from '../inbox-words';

interface Props {
  list: InboxList;
  show: InboxGroupKey | undefined;
  onShow: (show: InboxGroupKey | undefined) => void;
}

const count = (n: number) => n.toLocaleString('en-US');

/** Which items show: all, or one group, each with how many it holds; pressed is shown. */
export function InboxFilter({ list, show, onShow }: Props) {
  const choices = [
    { key: undefined, label: 'All', n: list.items.length },
    ...inboxGroups.map((g) => ({
      key: g.key,
      label: g.label,
      n: g.statuses.reduce((sum, s) => sum + list.counts[s], 0),
    })),
  ];
  return (
    <fieldset className="close-presets rinbox-filter">
      <legend className="visually-hidden">Show</legend>
      {choices.map((c) => (
        <button
          key={c.label}
          type="button"
          className="preset"
          aria-pressed={show === c.key}
          onClick={() => onShow(c.key)}
        >
          {c.label} <span className="preset-count">{count(c.n)}</span>
        </button>
      ))}
    </fieldset>
  );
}
