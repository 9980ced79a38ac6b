#include "api/graph_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runtime/model.h"

namespace qrt {
namespace {

// ---- text -------------------------------------------------------------------------

// Escapes text for an HTML element or a quoted attribute.
std::string Esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Shortest text that reads back as the same float ("%.9g" for scales, which need it).
std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A share as a percentage, with two decimals below 1%.
std::string Percent(double share) {
  const double p = 100.0 * share;
  return Fixed(p, p < 1 ? 2 : 1) + "%";
}

std::string OpText(const Node& n) { return n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type; }

// First `limit` elements of a constant, then the count of the rest.
std::string Elements(const Tensor& t, int64_t limit) {
  if (t.empty() || t.raw() == nullptr) return "";
  const bool integral = !IsFloatType(t.dtype()) && !IsFloat8Type(t.dtype());
  std::string s;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n && i < limit; ++i) {
    if (i) s += ", ";
    s += integral ? std::to_string(t.GetAsInt64(i)) : Num(t.GetAsDouble(i));
  }
  if (n > limit) s += ", ... (" + std::to_string(n) + " values)";
  return s;
}

std::string AttrText(const AttrValue& a) {
  constexpr size_t kMaxItems = 16;
  auto list = [&](const auto& items, auto&& one) {
    std::string s = "[";
    for (size_t i = 0; i < items.size() && i < kMaxItems; ++i) s += (i ? ", " : "") + one(items[i]);
    if (items.size() > kMaxItems) s += ", ... (" + std::to_string(items.size()) + ")";
    return s + "]";
  };
  switch (TypeOf(a)) {
    case AttrType::kInt:
      return std::to_string(std::get<int64_t>(a));
    case AttrType::kFloat:
      return Num(std::get<float>(a));
    case AttrType::kString:
      return "\"" + std::get<std::string>(a) + "\"";
    case AttrType::kInts:
      return list(std::get<std::vector<int64_t>>(a), [](int64_t v) { return std::to_string(v); });
    case AttrType::kFloats:
      return list(std::get<std::vector<float>>(a), [](float v) { return Num(v); });
    case AttrType::kStrings:
      return list(std::get<std::vector<std::string>>(a), [](const std::string& v) { return "\"" + v + "\""; });
    case AttrType::kTensor: {
      const Tensor& t = std::get<Tensor>(a);
      return "tensor " + std::string(DataTypeName(t.dtype())) + " " + DimsToString(t.dims()) + " = " + Elements(t, 8);
    }
    case AttrType::kGraph: {
      const std::shared_ptr<Graph>& g = std::get<std::shared_ptr<Graph>>(a);
      return "subgraph of " + std::to_string(g ? g->num_live_nodes() : 0) + " nodes";
    }
  }
  return "";
}

// Ops whose constant inputs are quantization parameters worth showing in full.
bool IsQuantOp(const Node& n) {
  if (n.domain == "qrt") return true;
  const std::string& op = n.op_type;
  return op == "QuantizeLinear" || op == "DequantizeLinear" || op == "DynamicQuantizeLinear" ||
         op.rfind("QLinear", 0) == 0 || op == "MatMulInteger" || op == "ConvInteger" || op == "QAttention" ||
         op == "MatMulNBits" || op == "DynamicQuantizeMatMul" || op == "MatMulIntegerToFloat";
}

// The names ONNX gives the inputs of its common quantized ops, for the hover text.
const std::vector<std::string>* InputRoles(const Node& n) {
  static const std::map<std::string, std::vector<std::string>> kRoles = {
      {"QuantizeLinear", {"x", "y_scale", "y_zero_point"}},
      {"DequantizeLinear", {"x", "x_scale", "x_zero_point"}},
      {"QLinearConv", {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B"}},
      {"QLinearMatMul", {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"}},
      {"QLinearAdd", {"A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point", "C_scale", "C_zero_point"}},
      {"QLinearMul", {"A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point", "C_scale", "C_zero_point"}},
      {"MatMulInteger", {"A", "B", "a_zero_point", "b_zero_point"}},
      {"ConvInteger", {"x", "w", "x_zero_point", "w_zero_point"}},
  };
  if (n.domain == "qrt") return nullptr;
  auto it = kRoles.find(n.op_type);
  return it == kRoles.end() ? nullptr : &it->second;
}

// ---- value types ------------------------------------------------------------------

struct ValueType {
  DataType dtype = DataType::kUndefined;
  std::string shape;  // "" when unknown
};

// Dtypes and shapes by value name: the plan's where the graph plans for its declared input
// shapes (nothing runs: planning only prepares), else what the graph declares.
class TypeTable {
 public:
  explicit TypeTable(const Graph& g) : graph_(g) {
    bool static_inputs = !g.inputs.empty();
    for (ValueId in : g.inputs) {
      const Value& v = g.value(in);
      if (!v.shape || !StaticDims(*v.shape) || v.kind != DeclaredKind::kTensor) static_inputs = false;
    }
    if (!static_inputs || g.num_live_nodes() == 0) return;
    CompileOptions options;
    options.passes = "none";
    options.validate_after_each_pass = false;
    StatusOr<std::shared_ptr<const CompiledModel>> m = Compile(g, options);
    if (!m.ok() || !(*m)->default_plan()) return;
    model_ = *m;
    const Graph& pg = model_->graph();
    const Plan& plan = *model_->default_plan();
    for (uint32_t i = 0; i < pg.num_values() && i < plan.values.size(); ++i) {
      const PlannedValue& pv = plan.values[i];
      if (pv.dtype == DataType::kUndefined || pv.storage == Storage::kNone || pv.storage == Storage::kDynamic) continue;
      planned_[pg.value(ValueId{i}).name] = ValueType{pv.dtype, DimsToString(pv.dims)};
    }
  }

  ValueType Of(ValueId id) const {
    const Value& v = graph_.value(id);
    auto it = planned_.find(v.name);
    if (it != planned_.end()) return it->second;
    ValueType t;
    t.dtype = v.constant ? v.constant->dtype() : v.dtype;
    if (v.constant) {
      t.shape = DimsToString(v.constant->dims());
    } else if (v.shape) {
      t.shape = ShapeToString(*v.shape);
    }
    return t;
  }

 private:
  const Graph& graph_;
  std::shared_ptr<const CompiledModel> model_;
  std::unordered_map<std::string, ValueType> planned_;
};

// ---- layered layout ---------------------------------------------------------------

constexpr double kNodeHeight = 24, kRowGap = 30, kColGap = 14, kDummyWidth = 6, kMargin = 20;

struct Vertex {
  double width = 0;
  bool dummy = false;
  bool anchored = false;
  int layer = 0;
  double x = 0;  // centre
};

// A DAG drawn top to bottom: longest-path layers, long edges cut by dummy vertices,
// barycenter sweeps to order each layer, then x by least squares (isotonic regression
// per layer, which keeps the order and the gaps) towards the neighbours' mean.
class Layout {
 public:
  // Vertices are given in a topological order; every edge goes from a lower index to a
  // higher one. `anchored[v]`: v depends on a graph input; the others (constant
  // subgraphs: weight dequantization, shape arithmetic) are placed just above their readers.
  Layout(std::vector<double> widths, const std::vector<std::pair<int, int>>& edges, const std::vector<bool>& anchored) {
    const int n = int(widths.size());
    num_real_ = n;
    for (int v = 0; v < n; ++v) vertices_.push_back(Vertex{widths[size_t(v)], false, anchored[size_t(v)], 0, 0});
    std::vector<std::vector<int>> preds(n), succs(n);
    for (auto [u, v] : edges) {
      preds[v].push_back(u);
      succs[u].push_back(v);
    }
    for (int v = 0; v < n; ++v) {
      for (int u : preds[v]) vertices_[v].layer = std::max(vertices_[v].layer, vertices_[u].layer + 1);
    }
    for (int v = n - 1; v >= 0; --v) {
      if (anchored[v] || succs[v].empty()) continue;
      int lowest = std::numeric_limits<int>::max();
      for (int s : succs[v]) lowest = std::min(lowest, vertices_[s].layer);
      vertices_[v].layer = std::max(vertices_[v].layer, lowest - 1);
    }
    // Drop empty layers.
    std::vector<int> used;
    for (const Vertex& x : vertices_) used.push_back(x.layer);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (Vertex& x : vertices_) x.layer = int(std::lower_bound(used.begin(), used.end(), x.layer) - used.begin());
    num_layers_ = int(used.size());

    // Long edges: one chain of dummies per source, shared by its far readers.
    adj_down_.assign(n, {});
    std::vector<std::vector<int>> far(n);
    for (auto [u, v] : edges) {
      if (vertices_[v].layer - vertices_[u].layer > 1) far[u].push_back(v);
    }
    routes_.reserve(edges.size());
    std::vector<std::vector<int>> chain(n);  // chain[u][k]: dummy at layer(u) + 1 + k
    for (int u = 0; u < n; ++u) {
      int deepest = 0;
      for (int v : far[u]) deepest = std::max(deepest, vertices_[v].layer);
      for (int l = vertices_[u].layer + 1; l < deepest; ++l) {
        const int d = int(vertices_.size());
        vertices_.push_back(Vertex{kDummyWidth, true, anchored[size_t(u)], l, 0});
        adj_down_.emplace_back();
        adj_down_[chain[u].empty() ? u : chain[u].back()].push_back(d);
        chain[u].push_back(d);
      }
    }
    for (auto [u, v] : edges) {
      std::vector<int> route{u};
      const int span = vertices_[v].layer - vertices_[u].layer;
      for (int k = 0; k + 1 < span; ++k) route.push_back(chain[u][size_t(k)]);
      const int last = route.back();
      if (std::find(adj_down_[last].begin(), adj_down_[last].end(), v) == adj_down_[last].end()) {
        adj_down_[last].push_back(v);
      }
      route.push_back(v);
      routes_.push_back(std::move(route));
    }
    adj_up_.assign(vertices_.size(), {});
    for (size_t u = 0; u < vertices_.size(); ++u) {
      for (int v : adj_down_[u]) adj_up_[size_t(v)].push_back(int(u));
    }
    Order();
    Place();
  }

  const Vertex& vertex(int v) const { return vertices_[size_t(v)]; }
  // Vertices an edge passes, from its source to its target.
  const std::vector<int>& route(size_t edge) const { return routes_[edge]; }
  double y(int v) const { return kMargin + kNodeHeight / 2 + vertices_[size_t(v)].layer * (kNodeHeight + kRowGap); }
  double width() const { return width_; }
  double height() const { return kMargin * 2 + num_layers_ * (kNodeHeight + kRowGap) - kRowGap; }

 private:
  void Order() {
    layers_.assign(size_t(num_layers_), {});
    // Initial order: depth-first from the sources, so that chains start out together.
    std::vector<bool> seen(vertices_.size(), false);
    std::vector<int> stack;
    for (int s = 0; s < int(vertices_.size()); ++s) {
      if (seen[size_t(s)] || !adj_up_[size_t(s)].empty()) continue;
      stack.push_back(s);
      while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        if (seen[size_t(v)]) continue;
        seen[size_t(v)] = true;
        layers_[size_t(vertices_[size_t(v)].layer)].push_back(v);
        const std::vector<int>& next = adj_down_[size_t(v)];
        for (auto it = next.rbegin(); it != next.rend(); ++it) {
          if (!seen[size_t(*it)]) stack.push_back(*it);
        }
      }
    }
    pos_.assign(vertices_.size(), 0);
    Number();
    std::vector<std::vector<int>> best = layers_;
    int64_t best_crossings = Crossings();
    for (int sweep = 0; sweep < 8 && best_crossings > 0; ++sweep) {
      const bool down = sweep % 2 == 0;
      for (int k = 1; k < num_layers_; ++k) {
        const int l = down ? k : num_layers_ - 1 - k;
        Reorder(layers_[size_t(l)], down ? adj_up_ : adj_down_);
      }
      const int64_t c = Crossings();
      if (c < best_crossings) {
        best_crossings = c;
        best = layers_;
      }
    }
    layers_ = std::move(best);
    Number();
  }

  void Number() {
    for (const std::vector<int>& layer : layers_) {
      for (size_t i = 0; i < layer.size(); ++i) pos_[size_t(layer[i])] = int(i);
    }
  }

  // Sorts one layer by the mean position of each vertex's neighbours in the adjacent layer
  // (vertices without any keep their place).
  void Reorder(std::vector<int>& layer, const std::vector<std::vector<int>>& adj) {
    std::vector<std::pair<double, int>> keyed;
    keyed.reserve(layer.size());
    for (size_t i = 0; i < layer.size(); ++i) {
      const std::vector<int>& nb = adj[size_t(layer[i])];
      double key = double(i);
      if (!nb.empty()) {
        double sum = 0;
        for (int u : nb) sum += pos_[size_t(u)];
        key = sum / double(nb.size());
      }
      keyed.emplace_back(key, layer[i]);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < layer.size(); ++i) {
      layer[i] = keyed[i].second;
      pos_[size_t(layer[i])] = int(i);
    }
  }

  // Edge crossings between adjacent layers (inversions counted with a Fenwick tree).
  int64_t Crossings() const {
    int64_t total = 0;
    for (int l = 0; l + 1 < num_layers_; ++l) {
      std::vector<std::pair<int, int>> e;
      for (int u : layers_[size_t(l)]) {
        for (int v : adj_down_[size_t(u)]) {
          if (vertices_[size_t(v)].layer == l + 1) e.emplace_back(pos_[size_t(u)], pos_[size_t(v)]);
        }
      }
      std::sort(e.begin(), e.end());
      const size_t m = layers_[size_t(l + 1)].size();
      std::vector<int> tree(m + 1, 0);
      int64_t seen = 0;
      for (const auto& [pu, pv] : e) {
        int64_t not_greater = 0;
        for (size_t i = size_t(pv) + 1; i > 0; i -= i & (~i + 1)) not_greater += tree[i];
        total += seen - not_greater;
        for (size_t i = size_t(pv) + 1; i <= m; i += i & (~i + 1)) ++tree[i];
        ++seen;
      }
    }
    return total;
  }

  // How firmly a vertex holds its wanted place: the main flow most, constant inputs
  // (weights, shape arithmetic) least, so that they step aside instead of pushing it.
  static double Weight(const Vertex& v) { return !v.anchored ? 1e-3 : v.dummy ? 0.5 : 1.0; }

  // x of one layer's vertices, in their order, as close to `want` as the gaps allow:
  // minimises sum w_i (x_i - want_i)^2 subject to x_{i+1} - x_i >= gap_i (pool adjacent
  // violators).
  void Fit(const std::vector<int>& layer, const std::vector<double>& want) {
    const size_t n = layer.size();
    std::vector<double> offset(n, 0);
    for (size_t i = 1; i < n; ++i) {
      offset[i] =
          offset[i - 1] + (vertices_[size_t(layer[i - 1])].width + vertices_[size_t(layer[i])].width) / 2 + kColGap;
    }
    struct Block {
      double sum, weight;
      size_t end;
    };
    std::vector<Block> blocks;
    for (size_t i = 0; i < n; ++i) {
      const double w = Weight(vertices_[size_t(layer[i])]);
      blocks.push_back(Block{w * (want[i] - offset[i]), w, i + 1});
      while (blocks.size() > 1) {
        const Block& b = blocks.back();
        const Block& a = blocks[blocks.size() - 2];
        if (a.sum / a.weight <= b.sum / b.weight) break;
        Block merged{a.sum + b.sum, a.weight + b.weight, b.end};
        blocks.pop_back();
        blocks.back() = merged;
      }
    }
    size_t i = 0;
    for (const Block& b : blocks) {
      for (; i < b.end; ++i) vertices_[size_t(layer[i])].x = b.sum / b.weight + offset[i];
    }
  }

  void Place() {
    for (const std::vector<int>& layer : layers_) {
      std::vector<double> want(layer.size(), 0);
      Fit(layer, want);
    }
    auto sweep = [&](bool down, bool both) {
      for (int k = 0; k < num_layers_; ++k) {
        const std::vector<int>& layer = layers_[size_t(down ? k : num_layers_ - 1 - k)];
        std::vector<double> want;
        want.reserve(layer.size());
        for (int v : layer) {
          // Constant inputs follow their readers; the main flow follows its own kind only,
          // so that constants beside it do not drag it sideways layer after layer.
          const Vertex& x = vertices_[size_t(v)];
          double sum = 0;
          int count = 0;
          for (int pass = 0; pass < 2 && count == 0; ++pass) {
            for (int side = 0; side < 2; ++side) {
              const bool use = !x.anchored ? side == 1 : both || side == (down ? 0 : 1);
              if (!use) continue;
              for (int u : (side == 0 ? adj_up_ : adj_down_)[size_t(v)]) {
                if (pass == 0 && x.anchored && !vertices_[size_t(u)].anchored) continue;
                sum += vertices_[size_t(u)].x;
                ++count;
              }
            }
          }
          want.push_back(count ? sum / count : x.x);
        }
        Fit(layer, want);
      }
    };
    for (int round = 0; round < 4; ++round) {
      sweep(true, false);
      sweep(false, false);
    }
    sweep(true, true);
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const Vertex& v : vertices_) {
      lo = std::min(lo, v.x - v.width / 2);
      hi = std::max(hi, v.x + v.width / 2);
    }
    if (vertices_.empty()) lo = hi = 0;
    for (Vertex& v : vertices_) v.x += kMargin - lo;
    width_ = hi - lo + 2 * kMargin;
  }

  std::vector<Vertex> vertices_;
  int num_real_ = 0;
  int num_layers_ = 0;
  std::vector<std::vector<int>> adj_down_, adj_up_;
  std::vector<std::vector<int>> routes_;
  std::vector<std::vector<int>> layers_;
  std::vector<int> pos_;
  double width_ = 0;
};

// ---- one pane -----------------------------------------------------------------------

// A node's identity across the passes: a node of `before` survives if `after` has a node
// of the same name, op and first output.
std::string NodeKey(const Graph& g, const Node& n) {
  std::string key = n.domain + '\x1f' + n.op_type + '\x1f' + n.name + '\x1f';
  for (ValueId o : n.outputs) {
    if (o.valid()) return key + g.value(o).name;
  }
  return key;
}

std::vector<NodeId> LiveNodesInOrder(const Graph& g) {
  StatusOr<std::vector<NodeId>> order = g.TopologicalOrder();
  if (order.ok()) return std::move(order).value();
  std::vector<NodeId> all;
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g.node(NodeId{i}).dead) all.push_back(NodeId{i});
  }
  return all;
}

// What the page says about one drawn node beyond the graph itself.
struct NodeMarks {
  bool fused = false;     // after: made by the passes
  bool replaced = false;  // before: gone, folded into a fused node
  bool removed = false;   // before: gone, into no fused node (folded constants, identities, dead code)
  std::vector<std::pair<std::string, std::string>> links;  // (name, element id) replaced / fused into
  const double* us = nullptr;                              // profile
};

struct Pane {
  const Graph* graph = nullptr;
  std::string prefix;  // element ids: prefix + index in `order`
  std::vector<NodeId> order;
  std::vector<NodeMarks> marks;  // by index in `order`
};

std::string NodeDisplayName(const Node& n, size_t index) {
  return n.name.empty() ? "#" + std::to_string(index) : n.name;
}

// The hover text of a node.
std::string NodeInfo(const Graph& g, const Node& n, const NodeMarks& marks, const TypeTable& types, double total_us,
                     bool fused_pane) {
  std::string s = "name: " + n.name + "\nop: " + OpText(n);
  if (!n.domain.empty()) s += "  (domain " + n.domain + ")";
  if (marks.fused) s += "\nmade by the passes";
  if (!marks.links.empty()) {
    s += fused_pane ? "\nreplaces:" : "\nfused into:";
    for (const auto& [name, id] : marks.links) s += " " + name;
  }
  if (marks.removed) s += "\nremoved by the passes";
  if (marks.us) {
    s += "\ntime: " + Fixed(*marks.us, 1) + " us per run";
    if (total_us > 0) s += " (" + Percent(*marks.us / total_us) + " of " + Fixed(total_us, 1) + " us)";
  }
  const bool quant = IsQuantOp(n);
  const std::vector<std::string>* roles = InputRoles(n);
  auto describe = [&](const std::vector<ValueId>& values, const char* heading, bool inputs) {
    if (values.empty()) return;
    s += heading;
    for (size_t i = 0; i < values.size(); ++i) {
      const ValueId id = values[i];
      s += "\n  ";
      if (inputs && roles && i < roles->size()) s += (*roles)[i] + " = ";
      if (!id.valid()) {
        s += "(omitted)";
        continue;
      }
      const Value& v = g.value(id);
      const ValueType t = types.Of(id);
      s += v.name + ": " + std::string(DataTypeName(t.dtype)) + " " + (t.shape.empty() ? "[?]" : t.shape);
      if (v.constant) {
        const Tensor& c = *v.constant;
        // Scales and zero points: every scalar; per-axis ones (rank 1) in part.
        const int64_t limit = quant ? (c.rank() <= 1 ? 6 : 0) : (c.numel() <= 4 ? 4 : 0);
        if (c.numel() == 1) {
          s += " = " + Elements(c, 1);
        } else if (limit > 0) {
          s += " = " + Elements(c, limit);
        } else {
          s += " (constant)";
        }
      }
    }
  };
  describe(n.inputs, "\ninputs:", true);
  describe(n.outputs, "\noutputs:", false);
  if (!n.attrs.all().empty()) {
    s += "\nattributes:";
    for (const auto& [name, value] : n.attrs.all()) s += "\n  " + name + " = " + AttrText(value);
  }
  return s;
}

// A colour from pale yellow through orange to dark red, for t in [0, 1].
std::string HeatColour(double t) {
  static const double kStops[3][3] = {{255, 245, 214}, {253, 166, 84}, {189, 30, 36}};
  t = std::min(1.0, std::max(0.0, t));
  const double f = t * 2;
  const int k = std::min(1, int(f));
  const double r = f - k;
  char buf[8];
  int c[3];
  for (int i = 0; i < 3; ++i) c[i] = int(std::lround(kStops[k][i] + (kStops[k + 1][i] - kStops[k][i]) * r));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
  return buf;
}

double LabelWidth(const std::string& text) { return std::max(40.0, 6.4 * double(text.size()) + 16); }

// One pane's SVG: graph inputs and outputs as ovals, nodes as boxes, edges as curves.
std::string PaneSvg(const Pane& pane, const TypeTable& types, double total_us, double max_us, bool is_after) {
  const Graph& g = *pane.graph;
  // Vertices: graph inputs, nodes (topological order), graph outputs.
  std::vector<double> widths;
  std::vector<std::string> labels;
  std::unordered_map<uint32_t, int> vertex_of_value;  // value -> vertex that makes it
  std::vector<bool> anchored;
  std::vector<ValueId> io_values;  // for input/output vertices
  for (ValueId in : g.inputs) {
    if (g.IsConstant(in)) continue;
    vertex_of_value[in.index] = int(widths.size());
    labels.push_back(g.value(in).name);
    widths.push_back(std::min(220.0, LabelWidth(labels.back())));
    anchored.push_back(true);
    io_values.push_back(in);
  }
  const int first_node = int(widths.size());
  for (NodeId id : pane.order) {
    const Node& n = g.node(id);
    for (ValueId o : n.outputs) {
      if (o.valid()) vertex_of_value[o.index] = int(widths.size());
    }
    labels.push_back(OpText(n));
    widths.push_back(LabelWidth(labels.back()));
    anchored.push_back(false);
  }
  const int first_output = int(widths.size());
  for (ValueId out : g.outputs) {
    labels.push_back(g.value(out).name);
    widths.push_back(std::min(220.0, LabelWidth(labels.back())));
    anchored.push_back(false);
    io_values.push_back(out);
  }
  struct EdgeInfo {
    std::string values;  // names of the values it carries
  };
  std::vector<std::pair<int, int>> edges;
  std::vector<EdgeInfo> edge_info;
  std::map<std::pair<int, int>, size_t> edge_index;
  auto add_edge = [&](int u, int v, const std::string& value) {
    auto [it, fresh] = edge_index.emplace(std::make_pair(u, v), edges.size());
    if (fresh) {
      edges.emplace_back(u, v);
      edge_info.push_back({value});
    } else if (edge_info[it->second].values != value) {
      edge_info[it->second].values += ", " + value;
    }
  };
  for (size_t k = 0; k < pane.order.size(); ++k) {
    const int v = first_node + int(k);
    for (ValueId in : g.node(pane.order[k]).inputs) {
      if (!in.valid()) continue;
      auto p = vertex_of_value.find(in.index);
      if (p != vertex_of_value.end() && p->second < v) add_edge(p->second, v, g.value(in).name);
    }
  }
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    auto p = vertex_of_value.find(g.outputs[k].index);
    if (p != vertex_of_value.end()) add_edge(p->second, first_output + int(k), g.value(g.outputs[k]).name);
  }
  std::sort(edges.begin(), edges.end());  // edge_index keeps each edge's info
  {
    std::vector<std::vector<int>> preds(widths.size());
    for (auto [u, v] : edges) preds[size_t(v)].push_back(u);
    for (size_t v = 0; v < widths.size(); ++v) {
      for (int u : preds[v]) anchored[v] = anchored[v] || anchored[size_t(u)];
    }
  }
  const Layout layout(widths, edges, anchored);

  std::string s;
  const std::string marker = pane.prefix + "arrow";
  s += "<svg class=\"graph\" width=\"" + Fixed(layout.width(), 0) + "\" height=\"" + Fixed(layout.height(), 0) +
       "\" viewBox=\"0 0 " + Fixed(layout.width(), 0) + " " + Fixed(layout.height(), 0) + "\" data-w=\"" +
       Fixed(layout.width(), 0) + "\" data-h=\"" + Fixed(layout.height(), 0) + "\">";
  s += "<defs><marker id=\"" + marker +
       "\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
       "<path d=\"M0,0L8,4L0,8z\" fill=\"#8a8f98\"/></marker></defs>";
  // Edges: where several end on one box, their ends are spread along its top.
  std::vector<std::vector<size_t>> incoming(widths.size());
  for (size_t e = 0; e < edges.size(); ++e) incoming[size_t(edges[e].second)].push_back(e);
  std::vector<double> end_x(edges.size());
  for (size_t v = 0; v < incoming.size(); ++v) {
    std::vector<size_t>& in = incoming[v];
    std::sort(in.begin(), in.end(), [&](size_t a, size_t b) {
      const std::vector<int>& ra = layout.route(a);
      const std::vector<int>& rb = layout.route(b);
      return layout.vertex(ra[ra.size() - 2]).x < layout.vertex(rb[rb.size() - 2]).x;
    });
    const double step = std::min(12.0, (layout.vertex(int(v)).width - 12) / double(std::max<size_t>(in.size(), 1)));
    for (size_t i = 0; i < in.size(); ++i) {
      end_x[in[i]] = layout.vertex(int(v)).x + (double(i) - double(in.size() - 1) / 2) * step;
    }
  }
  s += "<g class=\"edges\">";
  const double half = kNodeHeight / 2;
  for (size_t e = 0; e < edges.size(); ++e) {
    const std::vector<int>& r = layout.route(e);
    double px = layout.vertex(r[0]).x, py = layout.y(r[0]) + half;
    std::string d = "M" + Fixed(px, 1) + "," + Fixed(py, 1);
    for (size_t i = 1; i < r.size(); ++i) {
      const bool last = i + 1 == r.size();
      const double qx = last ? end_x[e] : layout.vertex(r[i]).x;
      const double qy = layout.y(r[i]) - half - (last ? 1 : 0);
      const double k = (qy - py) / 2;
      d += "C" + Fixed(px, 1) + "," + Fixed(py + k, 1) + " " + Fixed(qx, 1) + "," + Fixed(qy - k, 1) + " " +
           Fixed(qx, 1) + "," + Fixed(qy, 1);
      px = qx;
      py = qy;
      if (!last) {
        py = layout.y(r[i]) + half;
        d += "L" + Fixed(px, 1) + "," + Fixed(py, 1);
      }
    }
    s += "<path class=\"edge\" d=\"" + d + "\" marker-end=\"url(#" + marker + ")\"><title>" +
         Esc(edge_info[edge_index.at(edges[e])].values) + "</title></path>";
  }
  s += "</g>";
  // Graph inputs and outputs.
  for (size_t k = 0; k < io_values.size(); ++k) {
    const int v = k < size_t(first_node) ? int(k) : first_output + int(k) - first_node;
    const Vertex& x = layout.vertex(v);
    const ValueId id = io_values[k];
    const ValueType t = types.Of(id);
    const std::string name = g.value(id).name;
    std::string shown = name.size() > 32 ? name.substr(0, 30) + "…" : name;
    s += "<g class=\"io\" transform=\"translate(" + Fixed(x.x, 1) + "," + Fixed(layout.y(v), 1) + ")\"><title>" +
         Esc(std::string(v < first_node ? "graph input " : "graph output ") + name + ": " +
             std::string(DataTypeName(t.dtype)) + " " + (t.shape.empty() ? "[?]" : t.shape)) +
         "</title><ellipse rx=\"" + Fixed(x.width / 2, 1) + "\" ry=\"" + Fixed(half, 1) + "\"/><text>" + Esc(shown) +
         "</text></g>";
  }
  // Nodes.
  for (size_t k = 0; k < pane.order.size(); ++k) {
    const int v = first_node + int(k);
    const Vertex& x = layout.vertex(v);
    const Node& n = g.node(pane.order[k]);
    const NodeMarks& m = pane.marks[k];
    std::string cls = "node";
    if (m.fused) {
      cls += " fused";
    } else {
      if (IsQuantOp(n)) cls += " quant";
      if (m.replaced) cls += " replaced";
      if (m.removed) cls += " removed";
      if (is_after && total_us > 0 && !m.us) cls += " untimed";
    }
    s += "<g class=\"" + cls + "\" id=\"" + pane.prefix + std::to_string(k) + "\" data-name=\"" + Esc(n.name) +
         "\" data-op=\"" + Esc(OpText(n)) + "\"";
    if (!m.links.empty()) {
      std::string names, ids;
      for (const auto& [name, id] : m.links) {
        names += (names.empty() ? "" : " ") + name;
        ids += (ids.empty() ? "" : " ") + id;
      }
      const char* attr = is_after ? "data-replaces" : "data-fused-into";
      s += std::string(" ") + attr + "=\"" + Esc(names) + "\" " + attr + "-ref=\"" + ids + "\"";
    }
    std::string fill;
    if (m.us) {
      s += " data-us=\"" + Fixed(*m.us, 2) + "\" data-share=\"" +
           Fixed(total_us > 0 ? 100.0 * *m.us / total_us : 0.0, 2) + "\"";
      fill = HeatColour(max_us > 0 ? std::sqrt(*m.us / max_us) : 0.0);
    }
    s += " transform=\"translate(" + Fixed(x.x, 1) + "," + Fixed(layout.y(v), 1) + ")\"><title>" +
         Esc(NodeInfo(g, n, m, types, total_us, is_after)) + "</title><rect x=\"" + Fixed(-x.width / 2, 1) + "\" y=\"" +
         Fixed(-half, 1) + "\" width=\"" + Fixed(x.width, 1) + "\" height=\"" + Fixed(kNodeHeight, 1) + "\" rx=\"4\"" +
         (fill.empty() ? "" : " style=\"fill:" + fill + "\"") + "/><text>" + Esc(labels[size_t(v)]) + "</text></g>";
  }
  s += "</svg>";
  return s;
}

const char kStyle[] = R"CSS(
*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{font:13px system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;display:flex;flex-direction:column}
header{padding:6px 12px;border-bottom:1px solid #c9ced6;display:flex;gap:18px;align-items:center;flex-wrap:wrap;background:#f7f8fa}
header h1{font-size:15px;margin:0}
header .stat{color:#4a5261}
.key{display:inline-flex;align-items:center;gap:4px;margin-right:8px}
.sw{display:inline-block;width:14px;height:11px;border:1px solid #777;border-radius:2px}
.sw.plain{background:#dfe9f7;border-color:#5b7fa8}.sw.quant{background:#ece2f8;border-color:#8763b5}
.sw.fused{background:#ffc47e;border-color:#c0650a;border-width:2px}.sw.removed{background:#f1f1f1;border-style:dashed}
.sw.untimed{background:#f4f5f7;border-color:#a3a8b0}
.ramp{display:inline-block;width:120px;height:11px;border:1px solid #999;vertical-align:middle;
 background:linear-gradient(90deg,#fff5d6,#fda654,#bd1e24)}
#search{width:180px;padding:2px 6px}
main{flex:1;display:flex;min-height:0}
.pane{flex:1;display:flex;flex-direction:column;min-width:0;border-right:1px solid #c9ced6}
.pane h2{font-size:13px;margin:0;padding:4px 10px;background:#eef1f5;border-bottom:1px solid #d5d9e0;display:flex;align-items:center;gap:8px}
.pane h2 span{flex:1}
.pane h2 button{font-size:12px;padding:0 7px}
.scroll{flex:1;overflow:auto;background:#fff}
svg.graph{display:block;margin:0 auto}
#info{height:168px;border-top:1px solid #c9ced6;overflow:auto;background:#fbfbfc}
#info pre{margin:0;padding:6px 12px;font:12px ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre-wrap}
g.node{cursor:pointer}
g.node rect{fill:#dfe9f7;stroke:#5b7fa8;stroke-width:1}
g.node.quant rect{fill:#ece2f8;stroke:#8763b5}
g.node.fused rect{fill:#ffc47e;stroke:#c0650a;stroke-width:2.2}
g.node.replaced rect{stroke:#c0650a;stroke-width:1.6;stroke-dasharray:4 2}
g.node.removed rect{fill:#f1f1f1;stroke:#9a9a9a;stroke-dasharray:3 2}
g.node.untimed rect{fill:#f4f5f7;stroke:#a3a8b0}
g.node.hl rect{stroke:#d4003a;stroke-width:3.5;stroke-dasharray:none}
g.node.pin rect{stroke:#000;stroke-width:3.5}
g.node text,g.io text{font-size:11px;fill:#111;text-anchor:middle;dominant-baseline:central;pointer-events:none}
g.io ellipse{fill:#e6f4dc;stroke:#5f914a}
path.edge{fill:none;stroke:#8a8f98;stroke-width:1}
path.edge:hover{stroke:#222;stroke-width:2}
)CSS";

const char kScript[] = R"JS(
(function () {
  var info = document.querySelector('#info pre');
  var pinned = null, lit = [];
  function refs(g, attr) {
    var ids = (g.getAttribute(attr) || '').split(' '), out = [];
    for (var i = 0; i < ids.length; i++) {
      var e = ids[i] && document.getElementById(ids[i]);
      if (e) out.push(e);
    }
    return out;
  }
  function related(g) { return refs(g, 'data-replaces-ref').concat(refs(g, 'data-fused-into-ref')); }
  function clear() { lit.forEach(function (e) { e.classList.remove('hl'); }); lit = []; }
  function light(list) { clear(); lit = list; lit.forEach(function (e) { e.classList.add('hl'); }); }
  function show(g) { var t = g.querySelector('title'); info.textContent = t ? t.textContent : ''; }
  function reveal(e) {
    var pane = e.closest('.scroll'), r = e.getBoundingClientRect(), p = pane.getBoundingClientRect();
    pane.scrollLeft += r.left + r.width / 2 - p.left - pane.clientWidth / 2;
    pane.scrollTop += r.top + r.height / 2 - p.top - pane.clientHeight / 2;
  }
  document.querySelectorAll('g.node').forEach(function (g) {
    g.addEventListener('mouseenter', function () { if (!pinned) { show(g); light([g].concat(related(g))); } });
    g.addEventListener('mouseleave', function () { if (!pinned) clear(); });
    g.addEventListener('click', function (ev) {
      ev.stopPropagation();
      if (pinned) pinned.classList.remove('pin');
      pinned = pinned === g ? null : g;
      show(g);
      var rel = related(g);
      light([g].concat(rel));
      if (pinned) { g.classList.add('pin'); if (rel.length) reveal(rel[0]); }
    });
  });
  document.querySelectorAll('.scroll').forEach(function (s) {
    s.addEventListener('click', function () { if (pinned) { pinned.classList.remove('pin'); pinned = null; clear(); } });
  });
  function zoom(pane, z) {
    var svg = pane.querySelector('svg.graph');
    z = Math.max(0.1, Math.min(4, z));
    pane.setAttribute('data-zoom', z);
    svg.setAttribute('width', svg.getAttribute('data-w') * z);
    svg.setAttribute('height', svg.getAttribute('data-h') * z);
  }
  function fit(pane, least) {
    var svg = pane.querySelector('svg.graph'), s = pane.querySelector('.scroll');
    zoom(pane, Math.max(least, Math.min(1, (s.clientWidth - 4) / svg.getAttribute('data-w'))));
  }
  document.querySelectorAll('.pane').forEach(function (pane) {
    // Readable text first: shrink wide graphs only so far, and start at the first input.
    fit(pane, 0.7);
    var start = pane.querySelector('g.io');
    if (start) reveal(start);
    pane.querySelector('.scroll').scrollTop = 0;
    pane.querySelectorAll('button[data-zoom]').forEach(function (b) {
      b.addEventListener('click', function () {
        var z = +pane.getAttribute('data-zoom'), k = b.getAttribute('data-zoom');
        if (k === 'fit') fit(pane, 0.1); else zoom(pane, k === 'in' ? z * 1.25 : z / 1.25);
      });
    });
  });
  var search = document.getElementById('search'), found = document.getElementById('found');
  search.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Enter') return;
    var q = search.value.toLowerCase(), hits = [];
    if (q) document.querySelectorAll('g.node').forEach(function (g) {
      if ((g.getAttribute('data-name') + ' ' + g.getAttribute('data-op')).toLowerCase().indexOf(q) >= 0) hits.push(g);
    });
    light(hits);
    found.textContent = q ? hits.length + ' found' : '';
    document.querySelectorAll('.pane').forEach(function (pane) {
      var first = hits.filter(function (g) { return pane.contains(g); })[0];
      if (first) reveal(first);
    });
    if (hits.length) show(hits[0]);
  });
})();
)JS";

}  // namespace

std::string GraphsToHtml(const Graph& before, const Graph& after, const std::string& title,
                         const std::vector<HtmlNodeTime>& profile) {
  Pane panes[2];
  panes[0].graph = &before;
  panes[0].prefix = "b";
  panes[1].graph = &after;
  panes[1].prefix = "a";
  for (Pane& p : panes) {
    p.order = LiveNodesInOrder(*p.graph);
    p.marks.resize(p.order.size());
  }
  Pane& b = panes[0];
  Pane& a = panes[1];

  std::unordered_set<std::string> before_keys, after_keys;
  for (NodeId id : b.order) before_keys.insert(NodeKey(before, before.node(id)));
  for (NodeId id : a.order) after_keys.insert(NodeKey(after, after.node(id)));
  // Values the optimized graph still has: the walk back from a fused node stops there.
  std::unordered_set<std::string> surviving;
  for (ValueId v : after.inputs) surviving.insert(after.value(v).name);
  for (NodeId id : a.order) {
    for (ValueId v : after.node(id).inputs) {
      if (v.valid()) surviving.insert(after.value(v).name);
    }
    for (ValueId v : after.node(id).outputs) {
      if (v.valid()) surviving.insert(after.value(v).name);
    }
  }
  std::unordered_map<std::string, size_t> before_producer;  // value name -> index in b.order
  std::vector<bool> kept(b.order.size());
  for (size_t k = 0; k < b.order.size(); ++k) {
    const Node& n = before.node(b.order[k]);
    kept[k] = after_keys.count(NodeKey(before, n)) != 0;
    for (ValueId o : n.outputs) {
      if (o.valid()) before_producer.emplace(before.value(o).name, k);
    }
  }
  // The nodes each fused node replaced. Its seeds: the gone nodes of `before` that made its
  // outputs or had its name (a fusion keeps its anchor's name). From them, back through gone
  // nodes, up to values that survive (its inputs among them) or another fused node's seeds:
  // chains of fused nodes that pass codes to each other (link-conv-codes) have no surviving
  // value between them.
  std::unordered_map<std::string, std::vector<size_t>> before_by_name;
  for (size_t j = 0; j < b.order.size(); ++j) {
    const std::string& name = before.node(b.order[j]).name;
    if (!name.empty() && !kept[j]) before_by_name[name].push_back(j);
  }
  std::vector<std::vector<size_t>> seeds(a.order.size());
  std::unordered_map<size_t, size_t> seed_of;  // index in b.order -> index in a.order
  for (size_t k = 0; k < a.order.size(); ++k) {
    const Node& n = after.node(a.order[k]);
    if (before_keys.count(NodeKey(after, n))) continue;
    a.marks[k].fused = true;
    for (ValueId o : n.outputs) {
      if (!o.valid()) continue;
      auto p = before_producer.find(after.value(o).name);
      if (p != before_producer.end() && !kept[p->second]) seeds[k].push_back(p->second);
    }
    auto named = before_by_name.find(n.name);
    if (named != before_by_name.end()) seeds[k].insert(seeds[k].end(), named->second.begin(), named->second.end());
    for (size_t j : seeds[k]) seed_of.emplace(j, k);
  }
  std::vector<bool> claimed(b.order.size(), false);
  for (size_t k = 0; k < a.order.size(); ++k) {
    if (!a.marks[k].fused) continue;
    std::vector<size_t> stack = seeds[k], region;
    std::unordered_set<size_t> seen;
    while (!stack.empty()) {
      const size_t j = stack.back();
      stack.pop_back();
      if (kept[j] || !seen.insert(j).second) continue;
      auto owner = seed_of.find(j);
      if (owner != seed_of.end() && owner->second != k &&
          std::find(seeds[k].begin(), seeds[k].end(), j) == seeds[k].end()) {
        continue;
      }
      region.push_back(j);
      for (ValueId in : before.node(b.order[j]).inputs) {
        if (!in.valid() || surviving.count(before.value(in).name)) continue;
        auto p = before_producer.find(before.value(in).name);
        if (p != before_producer.end()) stack.push_back(p->second);
      }
    }
    std::sort(region.begin(), region.end());
    const Node& n = after.node(a.order[k]);
    for (size_t j : region) {
      claimed[j] = true;
      a.marks[k].links.emplace_back(NodeDisplayName(before.node(b.order[j]), j), b.prefix + std::to_string(j));
      b.marks[j].links.emplace_back(NodeDisplayName(n, k), a.prefix + std::to_string(k));
    }
  }
  size_t fused_count = 0, replaced_count = 0, removed_count = 0;
  for (size_t j = 0; j < b.order.size(); ++j) {
    b.marks[j].replaced = claimed[j];
    b.marks[j].removed = !kept[j] && !claimed[j];
    replaced_count += claimed[j];
    removed_count += b.marks[j].removed;
  }
  for (const NodeMarks& m : a.marks) fused_count += m.fused;

  // Profile: by node name, over the nodes of `after`.
  std::unordered_map<std::string, double> us_by_name;
  for (const HtmlNodeTime& t : profile) us_by_name[t.node] += t.microseconds;
  std::vector<double> us(a.order.size(), 0);
  double total_us = 0, max_us = 0;
  for (const HtmlNodeTime& t : profile) total_us += t.microseconds;
  for (size_t k = 0; k < a.order.size(); ++k) {
    auto it = us_by_name.find(after.node(a.order[k]).name);
    if (it == us_by_name.end()) continue;
    us[k] = it->second;
    a.marks[k].us = &us[k];
    max_us = std::max(max_us, us[k]);
  }
  const bool has_profile = !profile.empty();

  const TypeTable before_types(before), after_types(after);
  std::string html;
  html.reserve(1 << 20);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Esc(title) +
          " - qrt</title>\n<style>" + std::string(kStyle) + "</style></head>\n<body>\n<header><h1>" + Esc(title) +
          "</h1><span class=\"stat\">" + std::to_string(b.order.size()) + " nodes before, " +
          std::to_string(a.order.size()) + " after; " + std::to_string(fused_count) + " made by the passes from " +
          std::to_string(replaced_count) + "; " + std::to_string(removed_count) + " removed</span><span>";
  if (has_profile) {
    html +=
        "<span class=\"key profile\" title=\"fill: square root of the node's time over the slowest node's\">"
        "time share: 0 <span class=\"ramp\"></span> " +
        Percent(total_us > 0 ? max_us / total_us : 0.0) + " (of " + Fixed(total_us, 1) +
        " us per run)</span><span class=\"key\"><span class=\"sw fused\"></span>fused (outline)</span>"
        "<span class=\"key\"><span class=\"sw untimed\"></span>not timed (computed when planned)</span>";
  } else {
    html +=
        "<span class=\"key\"><span class=\"sw fused\"></span>made by the passes</span>"
        "<span class=\"key\"><span class=\"sw quant\"></span>quantization</span>"
        "<span class=\"key\"><span class=\"sw plain\"></span>other</span>";
  }
  html +=
      "<span class=\"key\"><span class=\"sw removed\"></span>removed</span></span>"
      "<input id=\"search\" placeholder=\"find node or op (Enter)\"><span id=\"found\"></span></header>\n<main>\n";
  const char* headings[2] = {"before passes", "after passes"};
  for (int i = 0; i < 2; ++i) {
    const Pane& p = panes[i];
    html += "<section class=\"pane\" id=\"pane-" + std::string(i == 0 ? "before" : "after") + "\" data-nodes=\"" +
            std::to_string(p.order.size()) + "\"><h2><span>" + headings[i] + ": " + std::to_string(p.order.size()) +
            " nodes</span><button data-zoom=\"out\">&minus;</button><button data-zoom=\"fit\">fit</button>"
            "<button data-zoom=\"in\">+</button></h2><div class=\"scroll\">" +
            PaneSvg(p, i == 0 ? before_types : after_types, total_us, max_us, i == 1) + "</div></section>\n";
  }
  html +=
      "</main>\n<div id=\"info\"><pre>Hover over a node for its op, values, shapes and quantization parameters; "
      "click a node made by the passes to pin it and show the nodes it replaced.</pre></div>\n<script>" +
      std::string(kScript) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace qrt
