// zod schemas of the login terminal channels (issue 28.5), spread into SCHEMAS. Ids are bounded
// here and looked up by the gateway (unknown ones refused); input chunks are size-limited.
import { z } from 'zod';
import { LIMITS } from './limits';
import { LOGIN_INPUT_MAX, LOGIN_SIZE } from './login-terminals';

const bounded = (name: string, max: number) =>
  z
    .string({ error: `${name} must be a string` })
    .min(1, { error: `${name} must not be empty` })
    .max(max, { error: `${name} must be at most ${max} characters` });
const id = bounded('id', 100);
const cells = (name: 'cols' | 'rows') => {
  const { min, max } = LOGIN_SIZE[name];
  return z
    .number({ error: `${name} must be a number` })
    .int({ error: `${name} must be a whole number` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` });
};

export const LOGIN_TERMINAL_SCHEMAS = {
  'acp:login:start': z.strictObject({
    sessionKey: bounded('sessionKey', LIMITS.sessionKey),
    methodId: bounded('methodId', LIMITS.profileId),
    cols: cells('cols').optional(),
    rows: cells('rows').optional(),
  }),
  'acp:login:get': z.strictObject({ id }),
  'acp:login:input': z.strictObject({ id, data: bounded('data', LOGIN_INPUT_MAX) }),
  'acp:login:resize': z.strictObject({ id, cols: cells('cols'), rows: cells('rows') }),
  'acp:login:close': z.strictObject({ id }),
};
