import { describe, expect, it } from 'vitest';
import { neutralise } from '../../../src/modules/reports/export.js';

// The cell rule on its own, including the values the database cannot hold today (negative numbers).
describe('neutralise', () => {
  it.each([
    { given: '=1+1', numeric: false, want: "'=1+1" },
    { given: '-5', numeric: false, want: "'-5" },
    { given: '\uFF0B1', numeric: false, want: "'\uFF0B1" },
    { given: '\n=1', numeric: false, want: "'\n=1" },
    { given: 'Lyon = port', numeric: false, want: 'Lyon = port' },
    { given: "'=already quoted", numeric: false, want: "'=already quoted" },
    { given: -5, numeric: true, want: -5 },
    { given: '-5.25', numeric: true, want: '-5.25' },
    { given: '-1+2', numeric: true, want: "'-1+2" },
    { given: null, numeric: false, want: '' },
  ])('$given (numeric: $numeric) -> $want', ({ given, numeric, want }) => {
    expect(neutralise(given, numeric)).toBe(want);
  });
});
