import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import { NotFoundPage } from '../components/dead-end';
import type { RouterContext } from '../router';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  // An address no route matches: a page of its own (a screen's own "not found" stays in the app).
  notFoundComponent: NotFoundPage,
});
