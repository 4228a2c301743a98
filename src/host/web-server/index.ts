/** The dashboard over HTTP (`ribosome run --web`, `ribosome web`) and the access token. */

export {
  type AccessToken,
  accessToken,
  checkToken,
  generateToken,
  redactToken,
  tokenMatches,
  tokenProblem,
  tokensOf,
} from '../../platform/http/token.ts';
export { dashboardAddress, dashboardCompanion } from './companion.ts';
export {
  DIST_WEB,
  startWebServer,
  type TicketAnswer,
  type WebServer,
  type WebServerOptions,
} from './http-server.ts';
export { parseServerUrl, type ServerUrl } from './server-url.ts';
export { configBody, contentTypeOf, etagOf, requestedFile } from './static-path.ts';
