/**
 * Where every test clock starts (the test server's, and the CLI's in tests that talk to one): a Wednesday at
 * 10:00:00 UTC in mid-month, hours from a day boundary and days from a week or month boundary, so no test crosses a
 * rate-limit window unless it moves the clock on purpose. Test clocks stand still otherwise: no outcome depends on
 * the real date or on how long a test ran.
 */
export const TEST_CLOCK_START = new Date('2026-11-18T10:00:00.000Z');
