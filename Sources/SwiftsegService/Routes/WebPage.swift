import Swiftseg

/// The page `GET /` serves. Plain HTML, CSS and JavaScript in one string, so the binary is all a deployment
/// needs; it uses only this server's endpoints.
enum WebPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>swiftseg</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
  header { padding: 12px 20px; background: #1d2b3a; color: #fff; }
  header h1 { margin: 0; font-size: 18px; }
  main { display: grid; grid-template-columns: 280px 1fr; gap: 20px; padding: 20px; }
  #drop { border: 2px dashed #99a; border-radius: 8px; padding: 24px 12px; text-align: center; background: #fff; cursor: pointer; }
  #drop.over { border-color: #07f; background: #eef5ff; }
  fieldset { border: 1px solid #ddd; border-radius: 6px; margin: 14px 0 0; background: #fff; }
  label { display: block; margin: 4px 0; }
  .stage { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
  .panel { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px; }
  .panel h2 { font-size: 14px; margin: 0 0 6px; }
  .checker { background-color: #fff; background-image: linear-gradient(45deg, #ccc 25%, transparent 25%),
     linear-gradient(-45deg, #ccc 25%, transparent 25%), linear-gradient(45deg, transparent 75%, #ccc 75%),
     linear-gradient(-45deg, transparent 75%, #ccc 75%); background-size: 20px 20px;
     background-position: 0 0, 0 10px, 10px -10px, -10px 0; }
  .frame { position: relative; display: inline-block; }
  .frame img { display: block; max-width: 520px; max-height: 520px; }
  .frame svg { position: absolute; inset: 0; width: 100%; height: 100%; }
  #status { margin-top: 10px; color: #555; min-height: 1.4em; }
  #status.error { color: #b00; }
  table { border-collapse: collapse; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; }
  a.button { display: inline-block; margin-top: 8px; padding: 6px 12px; background: #07f; color: #fff; border-radius: 4px; text-decoration: none; }
</style>
</head>
<body>
<header><h1>swiftseg — subjects, labels and rectangles</h1></header>
<main>
  <section>
    <div id="drop" tabindex="0">Drop a photo here or <u>choose one</u><input id="file" type="file" accept="\#(ImageFormat.allCases.map(\.mediaType).joined(separator: ","))" hidden></div>
    <fieldset><legend>Picture</legend>
      <label><input type="radio" name="mode" value="cutout" checked> Cutout</label>
      <label><input type="radio" name="mode" value="mask"> Mask</label>
      <label><input type="radio" name="mode" value="blur"> Blurred background</label>
      <label><input type="radio" name="mode" value="darken"> Darkened background</label>
      <label><input type="radio" name="mode" value="highlight"> Highlight</label>
      <label><input type="radio" name="mode" value="mask-preview"> Mask preview</label>
      <label><input type="checkbox" id="crop"> Crop to the subjects</label>
      <label><input type="checkbox" id="matting"> Alpha matting (hair, fur; cutout only, slower)</label>
      <label><input type="checkbox" id="decontaminate"> Clean edges (no background colour in soft edges)</label>
      <label>Download as <select id="format"><option value="png">PNG</option><option value="webp">WebP (lossless, smaller)</option></select></label>
    </fieldset>
    <div id="status" role="status"></div>
  </section>
  <section class="stage">
    <div class="panel"><h2>Result</h2><div class="frame checker"><img id="result" alt="result"></div>
      <div><a id="download" class="button" download="cutout.png" hidden>Download</a></div></div>
    <div class="panel"><h2>Photo and rectangles (best in yellow)</h2><div class="frame"><img id="photo" alt="photo"><svg id="quads"></svg></div></div>
    <div class="panel"><h2>Instances (area: share of the photo)</h2><table id="instances"></table></div>
    <div class="panel"><h2>Labels</h2><table id="labels"></table></div>
  </section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let photo = null;

function say(text, isError) { $("status").textContent = text; $("status").className = isError ? "error" : ""; }

async function call(path, query) {
  const response = await fetch(path + (query ? "?" + new URLSearchParams(query) : ""), { method: "POST", body: photo });
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error.message; } catch (e) {}
    throw new Error(path + ": " + message);
  }
  return response;
}

function pictureQuery() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  const query = {};
  if (mode === "mask") query.mask = "1";
  else if (mode !== "cutout") query.effect = mode;
  if ($("crop").checked) query.crop = "1";
  $("matting").disabled = mode !== "cutout";
  if ($("matting").checked && mode === "cutout") query["alpha-matting"] = "1";
  $("decontaminate").disabled = mode === "mask";
  if ($("decontaminate").checked && mode !== "mask") query.decontaminate = "1";
  if ($("format").value !== "png") query.format = $("format").value;
  return query;
}

function row(cells, header) {
  const tr = document.createElement("tr");
  for (const c of cells) { const td = document.createElement(header ? "th" : "td"); td.textContent = c; tr.appendChild(td); }
  return tr;
}

async function renderPicture() {
  const blob = await (await call("/v1/cutout", pictureQuery())).blob();
  const url = URL.createObjectURL(blob);
  $("result").src = url;
  $("download").href = url;
  $("download").download = (document.querySelector("input[name=mode]:checked").value === "mask" ? "mask." : "cutout.") + $("format").value;
  $("download").hidden = false;
}

async function run() {
  if (!photo) return;
  say("Working…");
  $("photo").src = URL.createObjectURL(photo);
  try {
    const [subjects, labels, rectangles] = await Promise.all([
      call("/v1/subjects").then((r) => r.json()),
      call("/v1/classify", { top: "3" }).then((r) => r.json()),
      call("/v1/rectangles", { "max-observations": "3" }).then((r) => r.json()),
      renderPicture(),
    ]);
    const instances = $("instances"); instances.replaceChildren(row(["#", "area", "score"], true));
    const pixels = subjects.width * subjects.height;
    for (const i of subjects.instances) instances.appendChild(row([i.index, (100 * i.area / pixels).toFixed(1) + " %", i.score.toFixed(2)]));
    const table = $("labels"); table.replaceChildren(row(["confidence", "label"], true));
    for (const c of labels.classifications) table.appendChild(row([c.confidence.toFixed(2), c.identifier]));
    const svg = $("quads");
    svg.setAttribute("viewBox", "0 0 " + rectangles.width + " " + rectangles.height);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.replaceChildren();
    rectangles.rectangles.forEach((r, n) => {
      const p = r.pixelCorners, poly = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
      poly.setAttribute("points", [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map((q) => q.x + "," + q.y).join(" "));
      poly.setAttribute("fill", "none");
      poly.setAttribute("stroke", n === 0 ? "#ffd400" : "#00c8ff");
      poly.setAttribute("stroke-width", Math.max(2, rectangles.width / 250));
      svg.appendChild(poly);
    });
    say(subjects.instances.length + " instance(s); " + rectangles.rectangles.length + " rectangle(s)" +
        (rectangles.rectangles.length ? " (confidence " + rectangles.rectangles.map((r) => r.confidence.toFixed(2)).join(", ") + ")" : "") +
        "; top label: " +
        (labels.classifications[0] ? labels.classifications[0].identifier : "none"));
  } catch (e) {
    say(e.message, true);
  }
}

function choose(file) { if (file) { photo = file; run(); } }
$("drop").addEventListener("click", () => $("file").click());
$("drop").addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") $("file").click(); });
$("file").addEventListener("change", (e) => choose(e.target.files[0]));
$("drop").addEventListener("dragover", (e) => { e.preventDefault(); $("drop").classList.add("over"); });
$("drop").addEventListener("dragleave", () => $("drop").classList.remove("over"));
$("drop").addEventListener("drop", (e) => { e.preventDefault(); $("drop").classList.remove("over"); choose(e.dataTransfer.files[0]); });
for (const input of document.querySelectorAll("input[name=mode], #crop, #matting, #decontaminate, #format")) {
  input.addEventListener("change", () => { if (photo) renderPicture().then(() => say("Done."), (e) => say(e.message, true)); });
}
</script>
</body>
</html>
"""#
}
