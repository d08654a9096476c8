import type { Card } from '@card-console/shared/api/cards';
import type { Role } from '@card-console/shared/api/meta';
import type { StepUpMethod } from '@card-console/shared/api/session';
import { formatCents } from '@card-console/shared/money';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { StatusBadge, statusLabel } from '../../../components/status-badge';
import { useDocumentTitle } from '../../../components/use-document-title';
import { formatDate, formatDateTime } from '../../../lib/format';
import type { CardsSearch } from '../cards-search';
import { limitText } from './card-limits';
import { CardActivity, CardSpend, useCardMoney } from './card-money';
import { CardOwnerPanel } from './card-owner-panel';
import { CardSecrets } from './card-secrets';
import { LimitEditor } from './limit-editor';

interface CardDetailScreenProps {
  card: Card;
  /** The cards list's filters this card was opened from: "← All cards" returns to them. */
  listSearch: CardsSearch;
  role: Role;
  stepUpUntil: number | undefined;
  stepUpMethods: readonly StepUpMethod[];
  /** The editor warns about a new maximum at or above this (the session's). */
  largeMaximumCents: number;
  onSteppedUp: () => void;
}

export function CardDetailScreen(props: CardDetailScreenProps) {
  const { card, listSearch, role, stepUpUntil, stepUpMethods, largeMaximumCents, onSteppedUp } =
    props;
  useDocumentTitle(`Card ${card.name}`);
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<string | undefined>();
  const isAdmin = role === 'admin';
  const u = card.utilizationLimit;
  const money = useCardMoney(card.id);
  const editButton = useRef<HTMLButtonElement>(null);
  const editorClosed = useRef(false);
  // Saved or cancelled: focus goes back to the button that opened the editor.
  useEffect(() => {
    if (editing || !editorClosed.current) return;
    editorClosed.current = false;
    editButton.current?.focus();
  }, [editing]);

  return (
    <section aria-labelledby="card-title">
      <p className="detail-links">
        <Link to="/cards" search={listSearch}>
          ← All cards
        </Link>
        {/* A card belongs to no sub account the card data names: the list picks one. */}
        <Link to="/transactions" search={{ cardId: [card.id] }}>
          Transactions on this card
        </Link>
      </p>
      <div className="screen-header card-detail-header">
        <div className="card-detail-title">
          <h1 id="card-title" className="long-text">
            {card.name}
          </h1>
          <StatusBadge status={card.status} />
        </div>
        {/* The card's actions at the top right, where the other card products keep them. */}
        {isAdmin && !editing ? (
          <div className="actions card-detail-actions">
            <button
              type="button"
              ref={editButton}
              onClick={() => {
                setMessage(undefined);
                setEditing(true);
              }}
            >
              Edit name and limits
            </button>
          </div>
        ) : null}
      </div>
      {message ? (
        <p className="notice" role="status">
          {message}
        </p>
      ) : null}
      {isAdmin && editing ? (
        <LimitEditor
          key={card.id}
          card={card}
          largeMaximumCents={largeMaximumCents}
          onDone={(done) => {
            editorClosed.current = true;
            setEditing(false);
            setMessage(done || undefined);
          }}
        />
      ) : null}
      {/* The card and its limits in one column, its activity (the longest) beside them. */}
      <div className="detail-grid card-detail-grid">
        <div className="detail-stack">
          <div className="panel">
            <h2>Card</h2>
            <CardSecrets
              key={card.id}
              cardId={card.id}
              last4={card.last4}
              expiryMonth={card.expiryMonth}
              expiryYear={card.expiryYear}
              canReveal={isAdmin}
              stepUpUntil={stepUpUntil}
              stepUpMethods={stepUpMethods}
              onSteppedUp={onSteppedUp}
            />
            <dl className="pairs">
              <dt>Card id</dt>
              <dd className="mono">{card.id}</dd>
              <dt>Status</dt>
              <dd>{statusLabel(card.status)}</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(card.createdAt)}</dd>
            </dl>
          </div>
          <CardOwnerPanel card={card} isAdmin={isAdmin} />
          <div className="panel">
            <h2>Spending constraint</h2>
            <h3>Per transaction</h3>
            <dl className="pairs">
              <dt>Minimum</dt>
              <dd>{limitText(card.transactionSizeLimit.minimumCents)}</dd>
              <dt>Maximum</dt>
              <dd>{limitText(card.transactionSizeLimit.maximumCents)}</dd>
            </dl>
            <h3>Utilization limit</h3>
            {u ? (
              <dl className="pairs">
                <dt>Preset</dt>
                <dd>{u.preset === undefined ? '—' : statusLabel(u.preset)}</dd>
                <dt>Amount</dt>
                <dd>{u.limitCents === undefined ? '—' : formatCents(u.limitCents)}</dd>
                <dt>Time zone</dt>
                <dd>{u.timezone?.trim() || '—'}</dd>
                <dt>Start date</dt>
                <dd>{formatDate(u.startDate)}</dd>
              </dl>
            ) : (
              <p className="muted">No utilization limit.</p>
            )}
            <CardSpend money={money} card={card} />
          </div>
        </div>
        <CardActivity cardId={card.id} />
      </div>
    </section>
  );
}
