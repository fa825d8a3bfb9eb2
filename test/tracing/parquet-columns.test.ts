/**
 * v1 timestamp columns are written as bytes digit by digit (no string per value): they must be exactly the ISO text
 * the rest of the platform shows for the same instant.
 */
import { exportColumns } from '../../lib/local/tracing/parquet/columns';
import { formatMicros } from '../../lib/local/tracing/store/time';

test('v1 timestamp bytes are the ISO text of formatMicros, for any instant', () => {
  const [endTime] = exportColumns(['end_time'], 'v1');
  const instants = [
    0,
    1,
    -1,
    999_999,
    -86_400_000_000,
    -86_400_000_001,
    1_714_521_600_000_000,
    1_714_607_999_999_999,
    // the first and last microsecond of years 0000 and 9999, and the first of year 10000 (a longer date)
    -62_167_219_200_000_000,
    253_402_300_799_999_999,
    253_402_300_800_000_000,
  ];
  let state = 7;
  for (let i = 0; i < 20_000; i++) {
    state = (state * 48_271) % 2_147_483_647;
    instants.push(Math.floor((state / 2_147_483_647 - 0.3) * 4e15));
  }
  const mismatches = instants.filter((micros) => Buffer.from(endTime.convert(micros) as Uint8Array).toString('latin1') !== formatMicros(micros));
  expect(mismatches).toEqual([]);
  expect(endTime.convert(null)).toBeNull();
});
