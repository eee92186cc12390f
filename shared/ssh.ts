// An SSH destination as Sightline accepts it: user@host, a Host alias of ~/.ssh/config, or
// user@[v6 address]. Never anything ssh could read as an option (no leading '-', no spaces).
// One rule for the IPC schema and the gateway that runs ssh.
export const SSH_DESTINATION =
  /^(?:[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}@)?(?:[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}|\[[0-9A-Fa-f:.%]{2,60}\])$/;

export const SSH_DESTINATION_HINT = 'user@host or a Host from ~/.ssh/config';
