// The token endpoint paths of spec §4, under {auth_url_us} and {auth_url_eu}.
export const tokenPaths = {
  us: '/api/v1/auth/oauth2/token',
  eu: '/oauth2/default/v1/token',
} as const;
