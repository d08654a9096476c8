import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { merchantQueryOptions } from '../api/get-merchant';

/**
 * A transaction's merchant: the text the card network sent, as it is, and once the index says
 * which merchant it names, a link to every transaction at that merchant, however its texts are
 * written ("SQ *PRAIRIE FUEL…", "PRAIRIE FUEL #12 DENVER CO").
 */
export function MerchantRef({ descriptor }: { descriptor: string }) {
  const merchant = useQuery(merchantQueryOptions(descriptor)).data;
  const ways = merchant ? merchant.descriptors.length + merchant.more : 0;
  return (
    <>
      {descriptor}
      {merchant?.name ? (
        <span className="merchant-group">
          <Link to="/transactions" search={{ merchantName: [merchant.name] }}>
            All at {merchant.name}
          </Link>
          {ways > 1 ? (
            <small className="muted"> ({ways.toLocaleString('en-US')} ways it is written)</small>
          ) : null}
        </span>
      ) : null}
    </>
  );
}
