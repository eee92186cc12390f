// zod schemas of the login terminal channels (issue 28.5), spread into SCHEMAS. Ids are bounded
// here and looked up by the gateway (unknown ones refused); input chunks are size-limited.
import { z } from 'zod';
import { LIMITS } from './limits';
import { LOGIN_INPUT_MAX } from './login-terminals';

const bounded = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .min(1, { error: `${name} must not be empty` })
    .max(max, { error: `${name} must be at most ${max} characters` });
const id = bounded('id', 100);

export const LOGIN_TERMINAL_SCHEMAS = {
  'acp:login:start': z.strictObject({
    sessionKey: bounded('sessionKey', LIMITS.sessionKey),
    methodId: bounded('methodId', LIMITS.profileId),
  }),
  'acp:login:get': z.strictObject({ id }),
  'acp:login:input': z.strictObject({ id, data: bounded('data', LOGIN_INPUT_MAX) }),
  'acp:login:close': z.strictObject({ id }),
};
