// The one client the peers know (client_secret_post, client_credentials).
export const PEER_CLIENT = { client_id: 'bench-client', client_secret: 'bench-secret.sandbox~0001' } as const;
