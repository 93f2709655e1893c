// Typesets the book's formulas once, at the build, with the MathJax that readers' browsers ran (3.2.2, its CHTML
// output and its hidden MathML for screen readers), so that a page arrives with its mathematics already laid out.
// Called by booktools/prerender_math.py: reads JSON from stdin,
//   {"em": 16, "ex": 8, "pages": [{"fontURL": "../_static/mathjax/output/chtml/fonts/woff-v2",
//                                  "items": [{"tex": "x^2", "display": false}, ...]}, ...],
//    "scale": 1.273}
// and writes {"pages": [{"html": ["<mjx-container ...>", ...], "css": "...", "errors": [[3, "Missing close brace"], ...]}]}:
// each error is [the formula's index in the page's items, MathJax's message].
// Each page gets its own document, so that its stylesheet holds the rules of the characters it uses, as in a browser.
'use strict';

const {mathjax} = require('mathjax-full/js/mathjax.js');
const {TeX} = require('mathjax-full/js/input/tex.js');
const {CHTML} = require('mathjax-full/js/output/chtml.js');
const {liteAdaptor} = require('mathjax-full/js/adaptors/liteAdaptor.js');
const {RegisterHTMLHandler} = require('mathjax-full/js/handlers/html.js');
const {AssistiveMmlHandler} = require('mathjax-full/js/a11y/assistive-mml.js');
require('mathjax-full/js/input/tex/base/BaseConfiguration.js');
require('mathjax-full/js/input/tex/ams/AmsConfiguration.js');
require('mathjax-full/js/input/tex/newcommand/NewcommandConfiguration.js');
require('mathjax-full/js/input/tex/configmacros/ConfigMacrosConfiguration.js');

// the packages the browser's tex-chtml.js starts with: base, ams, newcommand and configmacros, as well as noundefined
// (an unknown macro shown in red: here an error instead, which stops the build), require and autoload (which fetch
// another package when a formula uses one of its macros: the book's formulas use none, and such a macro is an error
// here too). Loading more would change the output: braket's | is not base's
const PACKAGES = ['base', 'ams', 'newcommand', 'configmacros'];

function typesetPage(adaptor, page, em, ex, scale) {
  const errors = [];
  let current = -1;
  const tex = new TeX({
    packages: PACKAGES,
    formatError(jax, error) {
      errors.push([current, error.message]);
      return jax.formatError(error);
    },
  });
  const chtml = new CHTML({fontURL: page.fontURL});
  const document = mathjax.document('', {InputJax: tex, OutputJax: chtml});
  const html = page.items.map((item, index) => {
    current = index;
    const node = document.convert(item.tex, {display: Boolean(item.display), em, ex, scale, containerWidth: 80 * em});
    adaptor.setAttribute(node, 'data-latex', item.tex);  // the source, which the page no longer holds elsewhere
    return adaptor.outerHTML(node);
  });
  return {html, css: adaptor.textContent(chtml.styleSheet(document)), errors};
}

function main(input) {
  const request = JSON.parse(input);
  const adaptor = liteAdaptor();
  AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
  const pages = request.pages.map((page) => typesetPage(adaptor, page, request.em, request.ex, request.scale));
  process.stdout.write(JSON.stringify({pages}));
}

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => main(Buffer.concat(chunks).toString('utf8')));
