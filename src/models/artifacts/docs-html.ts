import type { CatalogEntry } from './catalog.js';
import type { Manifest } from './manifest.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * One self-contained HTML page: the lineage graph as inline SVG (sources on the left, each model one column right
 * of its deepest parent) and the dictionary below it. The graph scales to the window's width (a viewBox, width 100%);
 * a search box dims the boxes and hides the dictionary sections whose name does not match, and keeps a match's
 * upstream and downstream lit. One inline script, no network.
 */
export function docsHtml(manifest: Manifest, catalog: Record<string, CatalogEntry>): string {
  const models = Object.values(manifest.nodes).filter((n) => n.resource_type === 'model');
  const depth = new Map<string, number>();
  for (const s of manifest.sources) depth.set(s, 0);
  for (const m of models) {
    const parents = [...m.depends_on.nodes, ...m.depends_on.sources];
    depth.set(m.unique_id, 1 + Math.max(0, ...parents.map((p) => depth.get(p) ?? 0)));
  }
  const columns = new Map<number, string[]>();
  for (const [id, d] of depth) columns.set(d, [...(columns.get(d) ?? []), id]);
  const W = 230;
  const H = 44;
  const pos = new Map<string, { x: number; y: number }>();
  for (const [d, ids] of columns) {
    for (const [i, id] of ids.entries()) pos.set(id, { x: 20 + d * W, y: 20 + i * H });
  }
  const width = 40 + (Math.max(0, ...columns.keys()) + 1) * W;
  const height = 40 + Math.max(1, ...[...columns.values()].map((c) => c.length)) * H;
  const edges: string[] = [];
  for (const m of models) {
    const to = pos.get(m.unique_id);
    for (const p of [...m.depends_on.nodes, ...m.depends_on.sources]) {
      const from = pos.get(p);
      if (!from || !to) continue;
      const x1 = from.x + 190;
      const y1 = from.y + 15;
      const y2 = to.y + 15;
      // An edge that skips a column bows into the gap below the rows so the boxes in between do not hide it.
      const bow = to.x - x1 > W ? Math.max(y1, y2) + 30 : undefined;
      const c1 = bow === undefined ? `${x1 + 20},${y1}` : `${x1 + 40},${bow}`;
      const c2 = bow === undefined ? `${to.x - 20},${y2}` : `${to.x - 40},${bow}`;
      edges.push(
        `<path d="M${x1},${y1} C${c1} ${c2} ${to.x},${y2}" class="edge" data-from="${esc(p)}" data-to="${esc(m.unique_id)}"/>`,
      );
    }
  }
  const boxes = [...pos.entries()].map(([id, p]) => {
    const node = manifest.nodes[id];
    const cls = node ? `node ${node.kind}` : 'node source';
    const up = node ? [...node.depends_on.nodes, ...node.depends_on.sources].join(' ') : '';
    const link = node
      ? `<a href="#${esc(id)}" class="n" data-id="${esc(id)}" data-up="${esc(up)}">`
      : `<a class="n" data-id="${esc(id)}" data-up="">`;
    return `${link}<rect x="${p.x}" y="${p.y}" width="190" height="30" rx="6" class="${cls}"/><text x="${p.x + 8}" y="${p.y + 19}">${esc(id)}</text></a>`;
  });
  const sections = models.map((m) => {
    const entry = catalog[m.unique_id];
    const rows = (entry?.columns ?? []).map(
      (c) => `<tr><td>${esc(c.name)}</td><td>${esc(c.type)}</td><td>${esc(c.description)}</td></tr>`,
    );
    return `<section id="${esc(m.unique_id)}" data-id="${esc(m.unique_id)}"><h2>${esc(m.unique_id)} <small>${esc(m.kind ?? '')}</small></h2>
${m.description ? `<p>${esc(m.description)}</p>` : ''}${m.grain ? `<p><b>Grain:</b> ${esc(m.grain)}</p>` : ''}
<p><b>Reads:</b> ${[...m.depends_on.nodes, ...m.depends_on.sources].map(esc).join(', ') || '—'}</p>
${rows.length ? `<table><tr><th>column</th><th>type</th><th>description</th></tr>${rows.join('')}</table>` : ''}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Visibility Warehouse models</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222;overflow-wrap:anywhere}
svg.lineage{display:block;width:100%;height:auto;max-height:80vh}#q{font-size:1rem;padding:4px 8px;width:20rem;max-width:100%}
.dim{opacity:.15}.hit rect{stroke-width:3}section.hidden{display:none}
svg text{font-size:12px;pointer-events:none}.edge{fill:none;stroke:#999;stroke-width:1.2}
rect.node{fill:#eef4ff;stroke:#5b7fd6}rect.source{fill:#f3f3f3;stroke:#999}rect.incremental_by_time_range{fill:#e8f7ec;stroke:#3c9a5f}
rect.scd2{fill:#fff4e0;stroke:#d08b1c}rect.export{fill:#f6e9ff;stroke:#8a4fc8}rect.ephemeral{fill:#fff;stroke-dasharray:4}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}small{color:#777}
</style></head><body>
<h1>Models</h1><p>Generated ${esc(manifest.metadata.generated_at)}. ${models.length} models, ${manifest.sources.length} sources.</p>
<p><label>Search models <input id="q" type="search" placeholder="name, e.g. mart" autocomplete="off"></label>
<span id="found"></span></p>
<svg class="lineage" viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMinYMin meet" role="img" aria-label="lineage graph">${edges.join('')}${boxes.join('')}</svg>
${sections.join('\n')}
<script>${SEARCH}</script>
</body></html>
`;
}

/**
 * The search: a box or section whose name contains the text stays, with everything upstream and downstream of it;
 * the rest of the graph dims and the rest of the dictionary hides. Clicking a box searches for its exact name.
 */
const SEARCH = `(function(){
var q=document.getElementById('q'),found=document.getElementById('found');
var nodes=[].slice.call(document.querySelectorAll('a.n')),edges=[].slice.call(document.querySelectorAll('path.edge'));
var sections=[].slice.call(document.querySelectorAll('section[data-id]'));
var up={},down={};
nodes.forEach(function(n){var id=n.getAttribute('data-id');up[id]=(n.getAttribute('data-up')||'').split(' ').filter(Boolean);down[id]=down[id]||[];});
Object.keys(up).forEach(function(id){up[id].forEach(function(p){(down[p]=down[p]||[]).push(id);});});
function walk(start,map,seen){var todo=start.slice();while(todo.length){var id=todo.pop();(map[id]||[]).forEach(function(x){if(!seen[x]){seen[x]=1;todo.push(x);}});}}
function apply(){
  var text=q.value.trim().toLowerCase(),hits={},lit={};
  if(text){nodes.forEach(function(n){var id=n.getAttribute('data-id');if(id.toLowerCase().indexOf(text)>=0)hits[id]=1;});}
  var ids=Object.keys(hits);
  ids.forEach(function(id){lit[id]=1;});
  walk(ids,up,lit);walk(ids,down,lit);
  nodes.forEach(function(n){var id=n.getAttribute('data-id');n.classList.toggle('hit',!!hits[id]);n.classList.toggle('dim',!!text&&!lit[id]);});
  edges.forEach(function(e){e.classList.toggle('dim',!!text&&!(lit[e.getAttribute('data-from')]&&lit[e.getAttribute('data-to')]));});
  sections.forEach(function(s){s.classList.toggle('hidden',!!text&&!hits[s.getAttribute('data-id')]);});
  found.textContent=text?ids.length+' matching':'';
}
q.addEventListener('input',apply);
nodes.forEach(function(n){n.addEventListener('click',function(){q.value=n.getAttribute('data-id');apply();});});
})();`;
