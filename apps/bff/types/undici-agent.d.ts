// The one undici module the BFF loads directly (see src/upstream/undici-agent.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: unknown;
  export default Agent;
}
