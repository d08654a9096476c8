// Placeholder until the upstream client lands: the real one replaces this file.
export interface UpstreamClient {
  close(): Promise<void>;
}
