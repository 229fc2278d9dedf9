import type { ModuleHandlers } from '../../http/handlers.js';
import { ListError } from '../../lib/errors.js';
import { iso } from '../../lib/time.js';
import { caller } from '../../lib/identity.js';
import { exportBatches as complaintBatches } from '../complaints/repository.js';
import { ownedComplaints } from '../complaints/rules.js';
import { exportBatches as transportBatches } from '../transports/repository.js';
import { csvStream } from './export.js';
import { COMPLAINT_COLUMNS, TRANSPORT_COLUMNS } from './columns.js';
import { ownReportStatistics, type Period, reportStatistics } from './statistics-repository.js';

function checkPeriod(from: string | undefined, to: string | undefined, names: [string, string]): void {
  if (from !== undefined && to !== undefined && new Date(from) > new Date(to)) {
    throw new ListError(400, 'Validation failed', [`querystring/${names[0]} must not be after ${names[1]}`]);
  }
}

const stamp = () => iso(new Date()).slice(0, 10);

export const reportHandlers: ModuleHandlers<
  'getReportStatistics' | 'getOwnReportStatistics' | 'exportTransportsReport' | 'exportComplaintsReport'
> = {
  async getOwnReportStatistics(req) {
    const period: Period = req.query;
    checkPeriod(period.startDate, period.endDate, ['startDate', 'endDate']);
    return { message: 'Report statistics generated', result: await ownReportStatistics(req.server.db, caller(req), period) };
  },

  async getReportStatistics(req) {
    const auth = caller(req);
    const period: Period = req.query;
    checkPeriod(period.startDate, period.endDate, ['startDate', 'endDate']);
    return { message: 'Report statistics generated', result: await reportStatistics(req.server.db, auth, period) };
  },

  async exportTransportsReport(req) {
    const auth = caller(req);
    checkPeriod(req.query.startDate, req.query.endDate, ['startDate', 'endDate']);
    const rows = transportBatches(req.server.db, auth, req.query);
    return {
      file: { filename: `transports-${stamp()}.csv`, contentType: 'text/csv; charset=utf-8', body: csvStream(rows, TRANSPORT_COLUMNS) },
    };
  },

  async exportComplaintsReport(req) {
    const auth = caller(req);
    checkPeriod(req.query.startAtFrom, req.query.startAtTo, ['startAtFrom', 'startAtTo']);
    const rows = complaintBatches(req.server.db, ownedComplaints(auth), req.query);
    return {
      file: { filename: `complaints-${stamp()}.csv`, contentType: 'text/csv; charset=utf-8', body: csvStream(rows, COMPLAINT_COLUMNS) },
    };
  },
};
