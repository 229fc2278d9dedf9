/*
 * The tracking page a receiving customer opens from a tracking link (`/track/<token>`): one
 * self-contained document (inline style and script, no font, no map tiles, no external request)
 * that reads `GET /public/tracking/<token>` and draws the route as SVG. Readable on a phone.
 */

export const PAGE_STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#17212b;background:#f3f5f8}
main{max-width:34rem;margin:0 auto;padding:1rem}h1{font-size:1.1rem;margin:.2rem 0 1rem;color:#1e3a5f}
.card{background:#fff;border-radius:12px;padding:1rem;margin-bottom:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
#status{font-size:1.6rem;font-weight:700;margin:0}.muted{color:#5b6775;font-size:.9rem}
#eta{font-size:1.25rem;font-weight:600;margin:.4rem 0 0}.late{color:#b42318}.ontime{color:#067647}
svg{width:100%;height:auto;display:block;background:#eef2f7;border-radius:8px}
ol{margin:0;padding-left:1.2rem}li{margin:.2rem 0}.gone{color:#b42318;font-weight:600}
`;

export const PAGE_SCRIPT = `
(function () {
  var token = location.pathname.split('/').filter(Boolean).pop();
  var $ = function (id) { return document.getElementById(id); };
  var STATUS = { PENDING: 'Registered', VALIDATED: 'Ready to leave', IN_PROGRESS: 'On the way', ON_HOLD: 'Stopped for now',
    COMPLETED: 'Delivered', CANCELLED: 'Cancelled', ARCHIVED: 'Delivered' };
  var MILESTONE = { ARRIVED_AT_LOADING: 'Arrived at loading', LOADED: 'Loaded', DEPARTED: 'Departed',
    ARRIVED_AT_UNLOADING: 'Arrived at destination', UNLOADED: 'Unloaded', DELAYED: 'Delay reported', INCIDENT: 'Incident reported' };
  var time = function (iso) { return new Date(iso).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' }); };
  function text(id, value, cls) { var el = $(id); el.textContent = value; if (cls !== undefined) el.className = cls; }
  function draw(t) {
    var pts = t.route.slice();
    if (t.destination) pts.push({ latitude: t.destination.latitude, longitude: t.destination.longitude });
    var svg = $('map');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (pts.length === 0) { $('mapnote').textContent = 'No position yet.'; return; }
    var lat0 = pts.reduce(function (s, p) { return s + p.latitude; }, 0) / pts.length;
    var k = Math.cos(lat0 * Math.PI / 180);
    var xs = pts.map(function (p) { return p.longitude * k; }), ys = pts.map(function (p) { return -p.latitude; });
    var minX = Math.min.apply(null, xs), maxX = Math.max.apply(null, xs), minY = Math.min.apply(null, ys), maxY = Math.max.apply(null, ys);
    var span = Math.max(maxX - minX, maxY - minY, 0.01), W = 320, H = 220, pad = 16;
    var s = Math.min((W - 2 * pad) / Math.max(maxX - minX, span / 4), (H - 2 * pad) / Math.max(maxY - minY, span / 4));
    var px = function (i) { return (pad + (xs[i] - minX) * s).toFixed(1) + ',' + (pad + (ys[i] - minY) * s).toFixed(1); };
    var ns = 'http://www.w3.org/2000/svg';
    var add = function (name, attrs) { var el = document.createElementNS(ns, name); for (var a in attrs) el.setAttribute(a, attrs[a]); svg.appendChild(el); return el; };
    var n = t.route.length;
    if (n > 1) add('polyline', { points: t.route.map(function (_, i) { return px(i); }).join(' '), fill: 'none', stroke: '#1e66f5', 'stroke-width': 3, 'stroke-linejoin': 'round', 'stroke-linecap': 'round', id: 'route' });
    if (t.destination) { var d = px(pts.length - 1).split(','); add('rect', { x: d[0] - 6, y: d[1] - 6, width: 12, height: 12, fill: '#067647', id: 'destination' }); }
    if (n > 0) { var c = px(n - 1).split(','); add('circle', { cx: c[0], cy: c[1], r: 7, fill: '#f79009', stroke: '#fff', 'stroke-width': 2, id: 'truck' }); }
    $('mapnote').textContent = t.lastPosition ? 'Last position ' + time(t.lastPosition.recordedAt) + (t.routePointCount > n ? ' (route simplified)' : '') : '';
  }
  function show(t) {
    text('status', STATUS[t.status] || t.status);
    if (t.arrivedAt) text('eta', 'Arrived ' + time(t.arrivedAt), 'ontime');
    else if (t.eta) text('eta', 'Expected ' + time(t.eta) + (t.late ? ' (late by ' + t.lateByMinutes + ' min)' : ''), t.late ? 'late' : 'ontime');
    else text('eta', t.status === 'COMPLETED' ? 'Delivered' : 'No arrival estimate yet', '');
    text('distance', t.distanceRemainingKm === null ? '' : Math.round(t.distanceRemainingKm) + ' km to go (straight line)');
    text('window', t.unloadingWindow ? 'Delivery window ' + time(t.unloadingWindow.start) + ' - ' + time(t.unloadingWindow.end) : '');
    var list = $('milestones');
    while (list.firstChild) list.removeChild(list.firstChild);
    t.milestones.forEach(function (m) { var li = document.createElement('li'); li.textContent = (MILESTONE[m.type] || m.type) + ', ' + time(m.occurredAt); list.appendChild(li); });
    if (t.milestones.length === 0) { var li = document.createElement('li'); li.textContent = 'Nothing reported yet.'; list.appendChild(li); }
    draw(t);
    document.body.setAttribute('data-state', 'ready');
  }
  function gone(message) {
    text('status', message, 'gone');
    text('eta', 'Ask the carrier for a new link.', '');
    document.body.setAttribute('data-state', 'gone');
  }
  function load() {
    fetch('../public/tracking/' + encodeURIComponent(token), { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) { return res.json().then(function (body) { return { status: res.status, body: body }; }); })
      .then(function (r) {
        if (r.status === 200) return show(r.body.result);
        if (r.status === 410) return gone(r.body.errors.reason === 'REVOKED' ? 'This tracking link was withdrawn.' : 'This tracking link has expired.');
        if (r.status === 404 || r.status === 400) return gone('This tracking link is not valid.');
        text('eta', 'Could not load the tracking; retrying.', '');
      })
      .catch(function () { text('eta', 'Offline; retrying.', ''); });
  }
  load();
  setInterval(load, 60000);
})();
`;

export const PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Delivery tracking</title><style>${PAGE_STYLE}</style></head>
<body data-state="loading"><main>
<h1>Delivery tracking</h1>
<section class="card"><p id="status">Loading...</p><p id="eta"></p><p class="muted" id="distance"></p><p class="muted" id="window"></p></section>
<section class="card"><svg id="map" viewBox="0 0 320 220" role="img" aria-label="Route so far"></svg><p class="muted" id="mapnote"></p></section>
<section class="card"><h2 class="muted">Steps</h2><ol id="milestones"></ol></section>
</main><script>${PAGE_SCRIPT}</script></body></html>`;
