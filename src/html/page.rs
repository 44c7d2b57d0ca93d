//! The page shell: one HTML document with its CSS and script inline, a
//! header (what ran, when, totals) and a body. Nothing is loaded from
//! elsewhere: the Content-Security-Policy forbids every fetch, and only the
//! page's own script (by its per-page nonce) may run.

use super::escape::{esc, E};
use std::fmt::Write;

/// One count of the header's totals, e.g. `PASS 120`.
pub struct Total {
    /// The name a test reads (`data-total`); also the CSS class.
    pub key: String,
    pub label: String,
    pub count: usize,
}

/// What the header says about the run.
pub struct Header {
    /// `gpumc check`, `gpumc suite`, `gpumc run`.
    pub title: String,
    /// Label and value (plain text, escaped here), in order.
    pub facts: Vec<(String, String)>,
    pub totals: Vec<Total>,
}

/// The whole document: `header`, then `body` (HTML, already escaped).
pub fn document(h: &Header, body: &str) -> String {
    let nonce = nonce();
    let mut s = String::with_capacity(body.len() + CSS.len() + SCRIPT.len() + 4096);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:; script-src 'nonce-{nonce}'\">\n\
         <meta name=\"generator\" content=\"gpumc {}\">\n<title>{} report</title>\n\
         <style>{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{} report</h1>\n<dl class=\"facts\">\n",
        env!("CARGO_PKG_VERSION"),
        E(&h.title),
        E(&h.title)
    );
    for (k, v) in &h.facts {
        let _ = writeln!(s, "<dt>{}</dt><dd>{}</dd>", E(k), E(v));
    }
    s.push_str("</dl>\n<p class=\"totals\">\n");
    for t in &h.totals {
        let _ = writeln!(
            s,
            "<span class=\"total {cls}\" data-total=\"{key}\"><b>{}</b> {}</span>",
            t.count,
            E(&t.label),
            cls = class_name(&t.key),
            key = esc(&t.key),
        );
    }
    s.push_str("</p>\n</header>\n<main>\n");
    s.push_str(body);
    let _ = write!(
        s,
        "</main>\n<script nonce=\"{nonce}\">{SCRIPT}</script>\n</body>\n</html>\n"
    );
    s
}

/// `key` reduced to the characters of a CSS class name.
pub fn class_name(key: &str) -> String {
    key.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A fresh nonce per page (std's randomly keyed hasher; no dependency).
fn nonce() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let word = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", word(), word())
}

const CSS: &str = r#"
:root{--fg:#1d2430;--muted:#5b6575;--line:#d8dde6;--bg:#fff;--head:#f3f5f9;--pass:#1b7f3b;--fail:#b3261e;--unknown:#8a6100;--error:#6b2fa3;--allowed:#3f7fd0;--forbidden:#d7263d;--undefined:#f0a030;--undecided:#9a7fd1;--filtered:#9aa3ad;--unseen:#ffffff}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
header{padding:14px 22px 8px;border-bottom:1px solid var(--line);background:var(--head)}
h1{font-size:20px;margin:0 0 6px}
h3{font-size:14px;margin:14px 0 4px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 8px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;word-break:break-all}
.totals{margin:6px 0}.total{display:inline-block;margin:0 10px 4px 0;padding:2px 9px;border-radius:11px;background:#e6e9ef}
.total.PASS,.total.agree,.total.ok{background:#dcefe1;color:var(--pass)}.total.FAIL,.total.disagree,.total.violation{background:#f8dedb;color:var(--fail)}
.total.UNKNOWN,.total.unsupported{background:#f6ecd2;color:var(--unknown)}.total.ERROR,.total.error,.total.MISSING{background:#ebdff5;color:var(--error)}
main{padding:10px 22px 40px}
.controls{display:flex;gap:10px;align-items:center;margin:4px 0 10px;flex-wrap:wrap}
.controls input{width:22em;padding:4px 7px;font:inherit;border:1px solid var(--line);border-radius:4px}
.controls select,.controls button{font:inherit;padding:3px 6px;border:1px solid var(--line);border-radius:4px;background:#fff}
#shown{color:var(--muted)}
.tests{border:1px solid var(--line);border-radius:6px;overflow:hidden}
.row{display:grid;grid-template-columns:var(--cols);gap:0 10px;align-items:center;padding:4px 10px}
.row>span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.row .num{text-align:right;font-variant-numeric:tabular-nums}
.head{background:var(--head);border-bottom:1px solid var(--line);font-weight:600;position:sticky;top:0;z-index:1}
.head button{all:unset;cursor:pointer;white-space:nowrap}.head button.num{text-align:right}
.head button[aria-sort=ascending]::after{content:" \25B2"}.head button[aria-sort=descending]::after{content:" \25BC"}
.head button:focus-visible{outline:2px solid var(--allowed)}
details.test{border-bottom:1px solid var(--line)}details.test[hidden]{display:none}
details.test:nth-of-type(even)>summary{background:#fafbfd}
details.test>summary{cursor:pointer;list-style:none}details.test>summary::-webkit-details-marker{display:none}
details.test>summary>span:first-child::before{content:"\25B8 ";color:var(--muted)}details.test[open]>summary>span:first-child::before{content:"\25BE "}
details.test>summary:hover{background:#eef3fb}
details.test.bad>summary{background:#fdf0ee}
.file{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
.v{font-weight:600}.v.PASS,.v.ok,.v.yes{color:var(--pass)}.v.FAIL,.v.violation,.v.no{color:var(--fail)}.v.UNKNOWN,.v.unsupported{color:var(--unknown)}.v.ERROR,.v.error,.v.MISSING{color:var(--error)}
.body{padding:4px 16px 14px 26px;background:#fcfcfe;border-top:1px dashed var(--line)}
.body dl{display:grid;grid-template-columns:max-content 1fr;gap:1px 12px;margin:6px 0}.body dt{color:var(--muted)}.body dd{margin:0}
.body table{border-collapse:collapse;font-size:12.5px;margin:4px 0}
.body th,.body td{border:1px solid var(--line);padding:1px 7px;text-align:left}.body th{background:var(--head);font-weight:600}
.body td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
pre{background:#f5f6f9;border:1px solid var(--line);padding:6px 8px;overflow:auto;max-height:24em;margin:4px 0}
.note{color:var(--muted)}
.cols{display:flex;flex-wrap:wrap;gap:0 40px;align-items:flex-start}.cols>section:empty{display:none}
.params{display:grid;grid-template-columns:repeat(auto-fill,minmax(17em,1fr));gap:1px 14px;max-width:72em}.params b{font-weight:600}
figure.graph{margin:6px 0;overflow:auto}
svg.hist text{white-space:pre;font:12px ui-monospace,"DejaVu Sans Mono",monospace;fill:var(--fg)}svg.hist text.pct{fill:var(--muted)}
.j-allowed{fill:var(--allowed);background:var(--allowed)}.j-forbidden{fill:var(--forbidden);background:var(--forbidden)}
.j-undefined{fill:var(--undefined);background:var(--undefined)}.j-undecided{fill:var(--undecided);background:var(--undecided)}
.j-filtered{fill:var(--filtered);background:var(--filtered)}.j-unseen{fill:var(--unseen);stroke:var(--allowed);stroke-dasharray:3 2;background:var(--unseen);border:1px dashed var(--allowed)}
.legend{font-size:12.5px;color:var(--muted)}.legend i{display:inline-block;width:11px;height:11px;margin:0 4px 0 12px;vertical-align:-1px;border-radius:2px}
svg.strip{display:block;width:100%;height:10px}
"#;

/// Sorting (click a column; `#sort=KEY` or `#sort=-KEY` in the URL),
/// filtering (`#q=TEXT`, `#v=TAG`), expand/collapse all. Rows keep their
/// input position in `data-i`, so a third click restores the input order.
const SCRIPT: &str = r#"
(function(){
'use strict';
var box=document.getElementById('tests');if(!box)return;
var heads=Array.prototype.slice.call(box.querySelectorAll('.head button'));
var q=document.getElementById('q'),v=document.getElementById('v'),shown=document.getElementById('shown');
var rows=function(){return Array.prototype.slice.call(box.querySelectorAll(':scope > details.test'));};
var total=rows().length,sort='';
function key(r,k,num){var x=r.dataset[k];if(num){var f=parseFloat(x);return isNaN(f)?null:f;}return x===undefined?'':x;}
function sortBy(s){
  var desc=s.charAt(0)==='-',k=desc?s.slice(1):s;
  var h=heads.filter(function(b){return b.dataset.key===k;})[0];
  if(s&&!h)return;
  var num=h?h.dataset.num==='1':false;
  var rs=rows();
  rs.sort(function(a,b){
    var ia=+a.dataset.i,ib=+b.dataset.i;
    if(!s)return ia-ib;
    var x=key(a,k,num),y=key(b,k,num),c;
    if(num){if(x===null||y===null){c=(x===null)-(y===null);return c||ia-ib;}c=x-y;}
    else c=x.localeCompare(y,undefined,{numeric:true});
    return (desc?-c:c)||ia-ib;});
  rs.forEach(function(r){box.appendChild(r);});
  heads.forEach(function(b){b.setAttribute('aria-sort',b===h?(desc?'descending':'ascending'):'none');});
  sort=s;box.dataset.sorted=s;
}
function filter(){
  var t=q.value.trim().toLowerCase(),tag=v.value,n=0;
  rows().forEach(function(r){
    var ok=(!t||(r.dataset.search||'').indexOf(t)>=0)&&(!tag||(' '+r.dataset.tags+' ').indexOf(' '+tag+' ')>=0);
    r.hidden=!ok;if(ok)n++;});
  shown.textContent=n+' of '+total+' shown';box.dataset.shown=n;
}
function save(){
  var p=[];if(sort)p.push('sort='+encodeURIComponent(sort));
  if(q.value)p.push('q='+encodeURIComponent(q.value));if(v.value)p.push('v='+encodeURIComponent(v.value));
  try{history.replaceState(null,'',p.length?'#'+p.join('&'):location.pathname+location.search);}catch(e){}
}
heads.forEach(function(b){b.addEventListener('click',function(){
  var k=b.dataset.key;sortBy(sort===k?'-'+k:sort==='-'+k?'':k);save();});});
q.addEventListener('input',function(){filter();save();});
v.addEventListener('change',function(){filter();save();});
document.getElementById('expand').addEventListener('click',function(){rows().forEach(function(r){if(!r.hidden)r.open=true;});});
document.getElementById('collapse').addEventListener('click',function(){rows().forEach(function(r){r.open=false;});});
var h=location.hash.slice(1).split('&');
h.forEach(function(kv){var i=kv.indexOf('=');if(i<0)return;var k=kv.slice(0,i),x=decodeURIComponent(kv.slice(i+1));
  if(k==='q')q.value=x;else if(k==='v'&&Array.prototype.some.call(v.options,function(o){return o.value===x;}))v.value=x;else if(k==='sort')sort=x;});
if(sort)sortBy(sort);
filter();
box.dataset.ready='1';
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_carries_the_header_and_one_nonced_script() {
        let h = Header {
            title: "gpumc <check>".into(),
            facts: vec![("command".into(), "gpumc check '<x>'".into())],
            totals: vec![Total {
                key: "PASS".into(),
                label: "PASS".into(),
                count: 3,
            }],
        };
        let d = document(&h, "<p>body</p>");
        assert!(d.starts_with("<!DOCTYPE html>"));
        assert!(d.contains("<title>gpumc &lt;check&gt; report</title>"));
        assert!(d.contains("gpumc check &#39;&lt;x&gt;&#39;"));
        assert!(d.contains("data-total=\"PASS\"><b>3</b> PASS"));
        assert_eq!(d.matches("<script").count(), 1);
        let nonce = d
            .split("'nonce-")
            .nth(1)
            .unwrap()
            .split('\'')
            .next()
            .unwrap();
        assert_eq!(nonce.len(), 32);
        assert!(d.contains(&format!("<script nonce=\"{nonce}\">")));
        // Nothing from the network.
        assert!(!d.contains("http://") && !d.contains("https://"));
        assert!(!d.contains("@import") && !d.contains("url("));
    }

    #[test]
    fn class_names_keep_only_safe_characters() {
        assert_eq!(class_name("agrees:no"), "agrees-no");
        assert_eq!(class_name("a\"b<c"), "a-b-c");
    }
}
