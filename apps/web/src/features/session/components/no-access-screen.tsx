import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useDocumentTitle } from '../../../components/use-document-title';
import { metaQueryOptions } from '../api/get-meta';

/**
 * Where single sign-on lands someone the identity provider knows but whose groups map to no
 * role here: signed in at the company, not in Card Console. No session exists; only the
 * public meta (the provider's name) is asked for.
 */
export function NoAccessScreen() {
  useDocumentTitle('No access');
  const meta = useQuery(metaQueryOptions());
  const provider = meta.data?.sso?.label;
  return (
    <main className="sign-in" id="main">
      <div className="sign-in-panel">
        <h1>Your company account has no access to Card Console</h1>
        <p>
          You signed in {provider ? `with your ${provider} account` : "at your company's sign-in"},
          but that account is not in a group that may use Card Console.
        </p>
        <p>
          Ask an administrator to add you to the right group (the one for finance staff or for card
          administrators). Once they have, sign in again.
        </p>
        <p>
          <Link to="/sign-in" search={{}}>
            Back to sign in
          </Link>
        </p>
      </div>
    </main>
  );
}
