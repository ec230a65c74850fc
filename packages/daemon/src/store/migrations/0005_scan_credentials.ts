// Whether a scan was submitted with a bearer token for its remote endpoint. The token itself is held in memory only
// (never stored); this flag lets a daemon that restarted before the scan ran fail it with that reason instead of
// listing the endpoint anonymously and grading what an unauthenticated caller sees as if it were the whole server.
export default /* sql */ `
ALTER TABLE scans ADD COLUMN bearer_token_given INTEGER NOT NULL DEFAULT 0 CHECK (bearer_token_given IN (0, 1));
`;
