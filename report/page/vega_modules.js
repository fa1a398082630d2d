// Lets Debian's Vega modules, each a separate UMD bundle, find one another: each runs as a CommonJS module whose
// require() answers from the modules defined before it. vega_bundle.cpp wraps every module in a call to this.
var cutuneVegaModules = {};
function cutuneVegaDefine(name, body) {
  "use strict";
  var module = {exports: {}};
  function require(dependency) {
    // vega-functions asks for the selection module under its package's former name.
    var found = cutuneVegaModules[dependency === "vega-selections" ? "vega-selection" : dependency];
    if (!found) throw new Error("Vega module " + name + " needs " + dependency + ", which is not in the page");
    return found;
  }
  body(module, module.exports, require);
  cutuneVegaModules[name] = module.exports;
}
// What the vega package itself adds to its modules: one namespace, and the transforms registered by their names.
function cutuneVegaNamespace() {
  "use strict";
  var vega = {};
  Object.keys(cutuneVegaModules).forEach(function (name) { Object.assign(vega, cutuneVegaModules[name]); });
  ["vega-transforms", "vega-view-transforms", "vega-encode"].forEach(function (name) {
    Object.assign(cutuneVegaModules["vega-dataflow"].transforms, cutuneVegaModules[name]);
  });
  return vega;
}
