/// <reference path="../../types/undici-agent.d.ts" />
// undici's connection-pooling Agent, loaded on its own. `import { Agent } from 'undici'` loads
// the whole package (fetch, WebSocket, caches, mocks) at start-up; the BFF only dispatches
// through an Agent, and loading just that module measured 6 to 14 MB less peak RSS
// (bench/report.md). undici is pinned and publishes no `exports` map, so this path is part of
// the installed package; the upstream tests exercise it on every run.
import type { Agent as AgentType } from 'undici';
import AgentModule from 'undici/lib/dispatcher/agent.js';

export const Agent = AgentModule as unknown as typeof AgentType;
export type Agent = AgentType;
