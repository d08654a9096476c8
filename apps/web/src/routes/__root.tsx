import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import type { RouterContext } from '../router';

const AddressNotFound = lazy(() => import('../app/address-not-found'));

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  // An address no route matches (a screen's own "not found" stays in the app).
  notFoundComponent: () => (
    <Suspense fallback={null}>
      <AddressNotFound />
    </Suspense>
  ),
});
