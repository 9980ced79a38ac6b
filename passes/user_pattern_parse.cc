// Pattern files (docs/patterns.md) -> UserPattern. Everything a file can get wrong is found
// here, before any graph is seen: unknown keys and ops, dangling references, cycles, nodes that do
// not feed the output, and replacements whose output dtype cannot be the matched output's (a
// small dtype algebra over the ops whose output dtype follows from their inputs or attributes).
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ops/ops.h"
#include "ops/registry.h"
#include "passes/pass_manager.h"
#include "passes/passes.h"
#include "passes/user_pattern_spec.h"
#include "passes/user_patterns.h"

namespace qrt {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxMatchNodes = 64;

// What a QuantizeLinear may make.
const std::vector<DataType> kQuantTypes = {DataType::kUInt8,         DataType::kInt8,           DataType::kUInt16,
                                           DataType::kInt16,         DataType::kUInt4,          DataType::kInt4,
                                           DataType::kFloat8E4M3FN,  DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                                           DataType::kFloat8E5M2FNUZ};

// Ops whose two operands may be swapped.
bool IsCommutativeOp(const OpDef* def) {
  return def == &kAddOp || def == &kMulOp || def == &kMaxOp || def == &kMinOp || def == &kSumOp || def == &kMeanOp;
}

std::string JoinKeys(std::initializer_list<const char*> keys) {
  std::string s;
  for (const char* k : keys) s += (s.empty() ? "" : ", ") + std::string(k);
  return s;
}

class Parser {
 public:
  Parser(const std::string& source) : source_(source) {}

  StatusOr<std::shared_ptr<const UserPatternSet>> ParseFile(std::string_view text) {
    json root;
    try {
      root = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
      return InvalidArgument(source_, ": invalid JSON: ", e.what());
    }
    where_ = source_;
    if (!root.is_object()) return Err("the file must hold a JSON object");
    QRT_RETURN_IF_ERROR(CheckKeys(root, {"format", "version", "description", "stage", "patterns"}, "the file"));
    if (root.contains("format") && root["format"] != "qrt.patterns") return Err("\"format\" must be \"qrt.patterns\"");
    if (root.contains("version") && root["version"] != 1) return Err("\"version\" must be 1");
    PatternStage stage = PatternStage::kAfter;
    if (root.contains("stage")) {
      if (root["stage"] == "before") {
        stage = PatternStage::kBefore;
      } else if (root["stage"] != "after") {
        return Err("\"stage\" must be \"before\" or \"after\"");
      }
    }
    if (!root.contains("patterns") || !root["patterns"].is_array() || root["patterns"].empty()) {
      return Err("\"patterns\" must be a non-empty array");
    }
    std::vector<std::shared_ptr<const UserPattern>> patterns;
    std::set<std::string> names;
    for (size_t i = 0; i < root["patterns"].size(); ++i) {
      QRT_ASSIGN_OR_RETURN(std::shared_ptr<UserPattern> p, ParsePattern(root["patterns"][i], i));
      if (!names.insert(p->name).second) return Err("the name is used by an earlier pattern of the file");
      patterns.push_back(std::move(p));
    }
    return std::shared_ptr<const UserPatternSet>(std::make_shared<UserPatternSet>(source_, stage, std::move(patterns)));
  }

 private:
  template <class... Args>
  Status Err(const Args&... args) const {
    return InvalidArgument(where_, ": ", args...);
  }

  Status CheckKeys(const json& obj, std::initializer_list<const char*> known, const std::string& what) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; })) {
        return Err("unknown key '", it.key(), "' in ", what, " (known: ", JoinKeys(known), ")");
      }
    }
    return Status::Ok();
  }

  StatusOr<const OpDef*> ParseOp(const json& node, const std::string& what) const {
    if (!node.contains("op") || !node["op"].is_string()) return Err(what, ": \"op\" must be a string");
    std::string op = node["op"].get<std::string>();
    std::optional<std::string> domain;
    if (const size_t colon = op.rfind(':'); colon != std::string::npos) {
      domain = op.substr(0, colon);
      op = op.substr(colon + 1);
    }
    if (node.contains("domain")) {
      if (!node["domain"].is_string()) return Err(what, ": \"domain\" must be a string");
      if (domain && *domain != node["domain"].get<std::string>()) return Err(what, ": two domains given");
      domain = node["domain"].get<std::string>();
    }
    const OpDef* def = domain ? FindOp(*domain, op) : FindOp("", op);
    if (def == nullptr && !domain) def = FindOp("qrt", op);
    if (def == nullptr) {
      return Err(what, ": unknown op '", domain && !domain->empty() ? *domain + ":" : "", op, "'");
    }
    return def;
  }

  StatusOr<AttrValue> ParseAttrValue(const json& v, const std::string& what) const {
    if (v.is_boolean()) return AttrValue(int64_t(v.get<bool>()));
    if (v.is_number_integer()) return AttrValue(v.get<int64_t>());
    if (v.is_number_float()) return AttrValue(float(v.get<double>()));
    if (v.is_string()) return AttrValue(v.get<std::string>());
    if (v.is_array()) {
      bool any_float = false, any_other = false;
      size_t strings = 0;
      for (const json& e : v) {
        any_float |= e.is_number_float();
        strings += e.is_string();
        any_other |= !e.is_number() && !e.is_string();
      }
      if (any_other || (strings != 0 && strings != v.size())) {
        return Err(what, ": a list attribute holds numbers or strings, not a mix");
      }
      const bool any_string = strings != 0;
      if (any_string) return AttrValue(v.get<std::vector<std::string>>());
      if (any_float) {
        std::vector<float> f;
        for (const json& e : v) f.push_back(float(e.get<double>()));
        return AttrValue(std::move(f));
      }
      return AttrValue(v.get<std::vector<int64_t>>());
    }
    return Err(what, ": an attribute is a number, a string or a list of them");
  }

  StatusOr<std::vector<DataType>> ParseDtypes(const json& v, const std::string& what) const {
    std::vector<DataType> out;
    const json list = v.is_array() ? v : json::array({v});
    for (const json& e : list) {
      if (!e.is_string()) return Err(what, ": \"dtype\" is a type name or a list of them");
      std::optional<DataType> t = ParseDataType(e.get<std::string>());
      if (!t) return Err(what, ": unknown dtype '", e.get<std::string>(), "'");
      out.push_back(*t);
    }
    if (out.empty()) return Err(what, ": \"dtype\" lists no type");
    return out;
  }

  // "$name" (or "$name?" where optional inputs are allowed): the variable's name.
  StatusOr<std::string> VarName(const std::string& s, bool* optional, const std::string& what) const {
    std::string name = s.substr(1);
    *optional = !name.empty() && name.back() == '?';
    if (*optional) name.pop_back();
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(uint8_t(c)) || c == '_'; })) {
      return Err(what, ": '", s, "' is not a variable name ($ then letters, digits, _)");
    }
    return name;
  }

  // "id" or "id:k": the node's id and output.
  StatusOr<std::pair<std::string, int>> NodeRef(const std::string& s, const std::string& what) const {
    const size_t colon = s.find(':');
    if (colon == std::string::npos) return std::make_pair(s, 0);
    const std::string k = s.substr(colon + 1);
    if (k.empty() || k.size() > 3 ||
        !std::all_of(k.begin(), k.end(), [](char c) { return std::isdigit(uint8_t(c)); })) {
      return Err(what, ": '", s, "' is not a node reference (\"id\" or \"id:output\")");
    }
    return std::make_pair(s.substr(0, colon), std::stoi(k));
  }

  Status CheckId(const json& node, const std::string& what) const {
    if (!node.contains("id") || !node["id"].is_string()) return Err(what, ": \"id\" must be a string");
    const std::string id = node["id"].get<std::string>();
    if (id.empty() || id[0] == '$' || id.find(':') != std::string::npos) {
      return Err(what, ": id '", id, "' must not be empty, start with '$' or hold ':'");
    }
    return Status::Ok();
  }

  StatusOr<ValueConstraint> ParseConstraint(const json& c, const std::string& key, bool is_node,
                                            std::optional<json>* attrs) const {
    const std::string what = StrCat("constraint '", key, "'");
    if (!c.is_object()) return Err(what, " must be an object");
    QRT_RETURN_IF_ERROR(
        is_node
            ? CheckKeys(c, {"constant", "graph_input", "dtype", "scalar", "scale", "value", "tolerance", "attrs"}, what)
            : CheckKeys(c, {"constant", "graph_input", "dtype", "scalar", "scale", "value", "tolerance"}, what));
    ValueConstraint vc;
    for (const char* flag : {"constant", "graph_input", "scalar", "scale"}) {
      if (!c.contains(flag)) continue;
      if (!c[flag].is_boolean()) return Err(what, ": \"", flag, "\" must be true or false");
      const bool b = c[flag].get<bool>();
      if (std::string_view(flag) == "constant") vc.constant = b;
      if (std::string_view(flag) == "graph_input") vc.graph_input = b;
      if (std::string_view(flag) == "scalar") vc.scalar = b;
      if (std::string_view(flag) == "scale") vc.scale = b;
    }
    if (c.contains("dtype")) {
      QRT_ASSIGN_OR_RETURN(vc.dtypes, ParseDtypes(c["dtype"], what));
    }
    if (c.contains("value")) {
      if (!c["value"].is_number()) return Err(what, ": \"value\" must be a number");
      vc.value = c["value"].get<double>();
    }
    if (c.contains("tolerance")) {
      if (!c["tolerance"].is_number() || c["tolerance"].get<double>() < 0 || !vc.value) {
        return Err(what, ": \"tolerance\" is a number >= 0, with \"value\"");
      }
      vc.tolerance = c["tolerance"].get<double>();
    }
    if (vc.graph_input == 1 && vc.constant == 1) return Err(what, ": a constant is no graph input");
    if (c.contains("attrs")) *attrs = c["attrs"];
    return vc;
  }

  Status ParseNodeAttrs(const json& attrs, MatchNodeSpec& n, const std::string& what) const {
    if (!attrs.is_object()) return Err(what, ": \"attrs\" must be an object");
    for (auto it = attrs.begin(); it != attrs.end(); ++it) {
      if (it->is_null()) {
        n.attrs.emplace_back(it.key(), std::nullopt);
        continue;
      }
      QRT_ASSIGN_OR_RETURN(AttrValue v, ParseAttrValue(*it, StrCat(what, ": attribute '", it.key(), "'")));
      n.attrs.emplace_back(it.key(), std::move(v));
    }
    return Status::Ok();
  }

  Status ParseMatch(const json& m, UserPattern& p) {
    if (!m.is_object()) return Err("\"match\" must be an object");
    QRT_RETURN_IF_ERROR(CheckKeys(m, {"nodes", "constraints", "commutative", "output"}, "\"match\""));
    if (!m.contains("nodes") || !m["nodes"].is_array() || m["nodes"].empty()) {
      return Err("\"match\" needs a non-empty array \"nodes\"");
    }
    if (m["nodes"].size() > kMaxMatchNodes) return Err("a match has at most ", kMaxMatchNodes, " nodes");
    bool commutative = true;
    if (m.contains("commutative")) {
      if (!m["commutative"].is_boolean()) return Err("\"commutative\" must be true or false");
      commutative = m["commutative"].get<bool>();
    }
    std::map<std::string, int> ids;
    for (const json& n : m["nodes"]) {
      if (!n.is_object()) return Err("each match node is an object");
      QRT_RETURN_IF_ERROR(CheckId(n, "a match node"));
      if (!ids.emplace(n["id"].get<std::string>(), int(ids.size())).second) {
        return Err("match node id '", n["id"].get<std::string>(), "' is used twice");
      }
    }
    std::map<std::string, int> vars;
    for (const json& n : m["nodes"]) {
      MatchNodeSpec spec;
      spec.id = n["id"].get<std::string>();
      const std::string what = StrCat("match node '", spec.id, "'");
      QRT_RETURN_IF_ERROR(CheckKeys(n, {"id", "op", "domain", "inputs", "attrs", "commutative", "shared"}, what));
      QRT_ASSIGN_OR_RETURN(spec.def, ParseOp(n, what));
      if (!n.contains("inputs") || !n["inputs"].is_array()) return Err(what, ": \"inputs\" must be an array");
      if (int(n["inputs"].size()) > spec.def->max_inputs) {
        return Err(what, ": ", n["inputs"].size(), " inputs; ", spec.def->op_type, " takes at most ",
                   spec.def->max_inputs);
      }
      for (const json& in : n["inputs"]) {
        if (!in.is_string()) return Err(what, ": an input is a string (\"id\", \"id:k\", \"$var\", \"$var?\" or \"\")");
        PatternRef r;
        r.text = in.get<std::string>();
        if (r.text.empty()) {
          r.kind = PatternRef::Kind::kAbsent;
        } else if (r.text[0] == '$') {
          QRT_ASSIGN_OR_RETURN(std::string name, VarName(r.text, &r.optional, what));
          r.kind = PatternRef::Kind::kVar;
          auto [it, added] = vars.emplace(name, int(vars.size()));
          if (added) p.vars.push_back(VarSpec{name, {}});
          r.index = it->second;
        } else {
          QRT_ASSIGN_OR_RETURN(auto ref, NodeRef(r.text, what));
          auto it = ids.find(ref.first);
          if (it == ids.end())
            return Err(what, ": input '", r.text, "' names no match node (a variable starts with '$')");
          r.kind = PatternRef::Kind::kNode;
          r.index = it->second;
          r.output = ref.second;
        }
        spec.inputs.push_back(std::move(r));
      }
      if (n.contains("attrs")) QRT_RETURN_IF_ERROR(ParseNodeAttrs(n["attrs"], spec, what));
      spec.commutative = commutative && IsCommutativeOp(spec.def) && spec.inputs.size() == 2;
      if (n.contains("commutative")) {
        if (!n["commutative"].is_boolean()) return Err(what, ": \"commutative\" must be true or false");
        if (n["commutative"].get<bool>() && !(IsCommutativeOp(spec.def) && spec.inputs.size() == 2)) {
          return Err(what, ": only two-operand Add, Mul, Max, Min, Sum and Mean are commutative");
        }
        spec.commutative = n["commutative"].get<bool>();
      }
      if (n.contains("shared")) {
        if (!n["shared"].is_boolean()) return Err(what, ": \"shared\" must be true or false");
        spec.shared = n["shared"].get<bool>();
      }
      p.nodes.push_back(std::move(spec));
    }
    // Output indices within the ops' outputs.
    for (const MatchNodeSpec& n : p.nodes) {
      for (const PatternRef& r : n.inputs) {
        if (r.kind == PatternRef::Kind::kNode && r.output >= p.nodes[size_t(r.index)].def->max_outputs) {
          return Err("match node '", n.id, "': input '", r.text, "': ", p.nodes[size_t(r.index)].def->op_type, " has ",
                     p.nodes[size_t(r.index)].def->max_outputs, " outputs");
        }
      }
    }
    // The output: given, or the one node no other node reads.
    std::vector<int> readers(p.nodes.size(), 0);
    for (const MatchNodeSpec& n : p.nodes) {
      for (const PatternRef& r : n.inputs) {
        if (r.kind == PatternRef::Kind::kNode) ++readers[size_t(r.index)];  // a variable's index is not a node's
      }
    }
    if (m.contains("output")) {
      if (!m["output"].is_string() || !ids.count(m["output"].get<std::string>())) {
        return Err("\"output\" must name a match node");
      }
      p.output = ids[m["output"].get<std::string>()];
    } else {
      for (size_t i = 0; i < p.nodes.size(); ++i) {
        if (readers[i] != 0) continue;
        if (p.output >= 0) {
          return Err("match nodes '", p.nodes[size_t(p.output)].id, "' and '", p.nodes[i].id,
                     "' are both read by no other node: name the output (\"output\": id)");
        }
        p.output = int(i);
      }
      if (p.output < 0) return Err("the match nodes form a cycle");
    }
    if (p.nodes[size_t(p.output)].shared) return Err("the output node cannot be shared (the rewrite replaces it)");
    // Consumers first (Kahn's algorithm on the reversed edges), from the output.
    std::vector<int> pending = readers;
    std::vector<int> ready = {p.output};
    if (pending[size_t(p.output)] != 0)
      return Err("the output node '", p.nodes[size_t(p.output)].id, "' is read inside the match");
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      p.order.push_back(i);
      for (const PatternRef& r : p.nodes[size_t(i)].inputs) {
        if (r.kind == PatternRef::Kind::kNode && --pending[size_t(r.index)] == 0) ready.push_back(r.index);
      }
    }
    if (p.order.size() != p.nodes.size()) {
      for (size_t i = 0; i < p.nodes.size(); ++i) {
        if (std::find(p.order.begin(), p.order.end(), int(i)) == p.order.end()) {
          return Err("match node '", p.nodes[i].id, "' does not feed the output '", p.nodes[size_t(p.output)].id,
                     "' (or the nodes form a cycle)");
        }
      }
    }
    // A shared node stays when the rest is erased: it may read only variables and shared nodes.
    for (const MatchNodeSpec& n : p.nodes) {
      for (const PatternRef& r : n.inputs) {
        if (n.shared && r.kind == PatternRef::Kind::kNode && !p.nodes[size_t(r.index)].shared) {
          return Err("shared match node '", n.id, "' reads '", r.text, "', which is not shared");
        }
      }
    }
    if (m.contains("constraints")) {
      const json& cs = m["constraints"];
      if (!cs.is_object()) return Err("\"constraints\" must be an object");
      for (auto it = cs.begin(); it != cs.end(); ++it) {
        const std::string& key = it.key();
        std::optional<json> attrs;
        if (!key.empty() && key[0] == '$') {
          bool optional = false;
          QRT_ASSIGN_OR_RETURN(std::string name, VarName(key, &optional, "\"constraints\""));
          if (optional) return Err("constraint '", key, "': name the variable without '?'");
          auto v = vars.find(name);
          if (v == vars.end()) return Err("constraint '", key, "' names a variable no match node reads");
          QRT_ASSIGN_OR_RETURN(p.vars[size_t(v->second)].constraint, ParseConstraint(*it, key, false, &attrs));
          continue;
        }
        QRT_ASSIGN_OR_RETURN(auto ref, NodeRef(key, "\"constraints\""));
        auto n = ids.find(ref.first);
        if (n == ids.end()) return Err("constraint '", key, "' names no match node or variable");
        MatchNodeSpec& node = p.nodes[size_t(n->second)];
        if (ref.second >= node.def->max_outputs) return Err("constraint '", key, "': no such output");
        QRT_ASSIGN_OR_RETURN(ValueConstraint vc, ParseConstraint(*it, key, true, &attrs));
        node.output_constraints.emplace_back(ref.second, std::move(vc));
        if (attrs) QRT_RETURN_IF_ERROR(ParseNodeAttrs(*attrs, node, StrCat("constraint '", key, "'")));
      }
    }
    return Status::Ok();
  }

  StatusOr<Tensor> ParseConstant(const json& c, const std::string& what) const {
    QRT_RETURN_IF_ERROR(CheckKeys(c, {"dtype", "shape", "data"}, what));
    if (!c.contains("dtype") || !c.contains("data") || !c["data"].is_array()) {
      return Err(what, ": a constant is {\"dtype\": ..., \"shape\": [...], \"data\": [...]}");
    }
    QRT_ASSIGN_OR_RETURN(std::vector<DataType> dt, ParseDtypes(c["dtype"], what));
    Dims dims;
    if (c.contains("shape")) {
      if (!c["shape"].is_array()) return Err(what, ": \"shape\" must be an array");
      for (const json& d : c["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > (1 << 20)) {
          return Err(what, ": a dimension is an integer in [0, 2^20]");
        }
        dims.push_back(d.get<int64_t>());
      }
    } else {
      dims = {int64_t(c["data"].size())};
    }
    if (dt.size() != 1 || ElementCount(dims) != int64_t(c["data"].size()) || c["data"].size() > (1 << 20)) {
      return Err(what, ": one dtype, and as many data elements as the shape holds");
    }
    StatusOr<Tensor> t = Tensor::Allocate(dt[0], dims);
    if (!t.ok()) return Err(what, ": ", t.status().message());
    for (size_t i = 0; i < c["data"].size(); ++i) {
      const json& e = c["data"][i];
      if (!e.is_number() && !e.is_boolean()) return Err(what, ": data must be numbers");
      const double d = e.is_boolean() ? double(e.get<bool>()) : e.get<double>();
      const int64_t iv = e.is_number_integer() ? e.get<int64_t>() : int64_t(d);
      void* raw = t->raw();
      switch (dt[0]) {
        case DataType::kFloat32:
          static_cast<float*>(raw)[i] = float(d);
          break;
        case DataType::kFloat64:
          static_cast<double*>(raw)[i] = d;
          break;
        case DataType::kInt8:
          static_cast<int8_t*>(raw)[i] = int8_t(iv);
          break;
        case DataType::kUInt8:
          static_cast<uint8_t*>(raw)[i] = uint8_t(iv);
          break;
        case DataType::kInt16:
          static_cast<int16_t*>(raw)[i] = int16_t(iv);
          break;
        case DataType::kUInt16:
          static_cast<uint16_t*>(raw)[i] = uint16_t(iv);
          break;
        case DataType::kInt32:
          static_cast<int32_t*>(raw)[i] = int32_t(iv);
          break;
        case DataType::kInt64:
          static_cast<int64_t*>(raw)[i] = iv;
          break;
        case DataType::kBool:
          static_cast<uint8_t*>(raw)[i] = d != 0;
          break;
        default:
          return Err(what, ": constants of dtype ", DataTypeName(dt[0]), " are not supported here");
      }
      if ((dt[0] != DataType::kFloat32 && dt[0] != DataType::kFloat64) && !e.is_number_integer() && !e.is_boolean()) {
        return Err(what, ": an integer constant holds integers");
      }
    }
    return std::move(t).value();
  }

  StatusOr<PatternRef> ParseReplaceRef(const json& in, UserPattern& p, const std::map<std::string, int>& rids,
                                       const std::string& what) const {
    PatternRef r;
    if (in.is_object()) {
      QRT_ASSIGN_OR_RETURN(Tensor t, ParseConstant(in, what));
      r.kind = PatternRef::Kind::kConstant;
      r.index = int(p.constants.size());
      r.text = "a constant";
      p.constants.push_back(std::move(t));
      return r;
    }
    if (!in.is_string()) return Err(what, ": an input is a string or a constant object");
    r.text = in.get<std::string>();
    if (r.text.empty()) return r;
    if (r.text[0] == '$') {
      bool optional = false;
      QRT_ASSIGN_OR_RETURN(std::string name, VarName(r.text, &optional, what));
      if (optional) return Err(what, ": '", r.text, "': a replacement names a variable without '?'");
      auto it = std::find_if(p.vars.begin(), p.vars.end(), [&](const VarSpec& v) { return v.name == name; });
      if (it == p.vars.end()) return Err(what, ": '", r.text, "' is bound by no match node");
      r.kind = PatternRef::Kind::kVar;
      r.index = int(it - p.vars.begin());
      return r;
    }
    QRT_ASSIGN_OR_RETURN(auto ref, NodeRef(r.text, what));
    r.kind = PatternRef::Kind::kNode;
    r.output = ref.second;
    if (auto it = rids.find(ref.first); it != rids.end()) {
      r.index = it->second;
      if (r.output >= p.replace[size_t(r.index)].num_outputs) {
        return Err(what, ": '", r.text, "': replacement node '", ref.first, "' has ",
                   p.replace[size_t(r.index)].num_outputs, " outputs");
      }
      return r;
    }
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      if (p.nodes[i].id != ref.first) continue;
      if (!p.nodes[i].shared) {
        return Err(what, ": '", r.text, "' is a match node the rewrite erases (mark it \"shared\" to keep it)");
      }
      r.index = int(i);
      r.match_node = true;
      return r;
    }
    return Err(what, ": '", r.text, "' names no earlier replacement node, match node or variable");
  }

  Status ParseReplaceNode(const json& n, UserPattern& p, std::map<std::string, int>& rids, const std::string& id) {
    ReplaceNodeSpec spec;
    spec.id = id;
    const std::string what = StrCat("replacement node '", id, "'");
    QRT_RETURN_IF_ERROR(CheckKeys(n, {"id", "op", "domain", "inputs", "attrs", "outputs"}, what));
    QRT_ASSIGN_OR_RETURN(spec.def, ParseOp(n, what));
    if (n.contains("outputs")) {
      if (!n["outputs"].is_number_integer() || n["outputs"].get<int64_t>() < 1 ||
          n["outputs"].get<int64_t>() > spec.def->max_outputs) {
        return Err(what, ": \"outputs\" is a count from 1 to ", spec.def->max_outputs);
      }
      spec.num_outputs = int(n["outputs"].get<int64_t>());
    }
    if (spec.num_outputs < spec.def->min_outputs) spec.num_outputs = spec.def->min_outputs;
    if (!n.contains("inputs") || !n["inputs"].is_array()) return Err(what, ": \"inputs\" must be an array");
    for (const json& in : n["inputs"]) {
      QRT_ASSIGN_OR_RETURN(PatternRef r, ParseReplaceRef(in, p, rids, what));
      spec.inputs.push_back(std::move(r));
    }
    size_t given = spec.inputs.size();
    while (given > 0 && spec.inputs[given - 1].kind == PatternRef::Kind::kAbsent) --given;
    if (int(given) < spec.def->min_inputs || int(spec.inputs.size()) > spec.def->max_inputs) {
      return Err(what, ": ", spec.inputs.size(), " inputs; ", spec.def->op_type, " takes ", spec.def->min_inputs,
                 " to ", spec.def->max_inputs);
    }
    if (n.contains("attrs")) {
      if (!n["attrs"].is_object()) return Err(what, ": \"attrs\" must be an object");
      for (auto it = n["attrs"].begin(); it != n["attrs"].end(); ++it) {
        ReplaceAttr a;
        a.name = it.key();
        if (it->is_string() && !it->get<std::string>().empty() && it->get<std::string>()[0] == '$' &&
            it->get<std::string>().rfind("$$", 0) != 0) {
          PatternRef r;
          QRT_ASSIGN_OR_RETURN(r, ParseReplaceRef(*it, p, rids, StrCat(what, ": attribute '", a.name, "'")));
          if (r.kind != PatternRef::Kind::kVar) return Err(what, ": attribute '", a.name, "' names no variable");
          a.var = r.index;
        } else if (it->is_string() && it->get<std::string>().rfind("$$", 0) == 0) {
          a.literal = AttrValue(it->get<std::string>().substr(1));  // "$$x" is the string "$x"
        } else {
          QRT_ASSIGN_OR_RETURN(AttrValue v, ParseAttrValue(*it, StrCat(what, ": attribute '", a.name, "'")));
          a.literal = std::move(v);
        }
        spec.attrs.push_back(std::move(a));
      }
    }
    rids[id] = int(p.replace.size());
    p.replace.push_back(std::move(spec));
    return Status::Ok();
  }

  Status ParseReplace(const json& r, UserPattern& p) {
    if (!r.is_object()) return Err("\"replace\" must be an object");
    QRT_RETURN_IF_ERROR(CheckKeys(r, {"lookup_table", "op", "nodes", "output"}, "\"replace\""));
    const int kinds = int(r.contains("lookup_table")) + int(r.contains("op")) + int(r.contains("nodes"));
    if (kinds != 1) return Err("\"replace\" needs exactly one of \"lookup_table\", \"op\" and \"nodes\"");
    const MatchNodeSpec& out = p.nodes[size_t(p.output)];
    if (r.contains("lookup_table")) {
      if (r.contains("output")) return Err("\"replace\": \"output\" goes inside \"lookup_table\"");
      const json& t = r["lookup_table"];
      if (!t.is_object()) return Err("\"lookup_table\" must be an object");
      QRT_RETURN_IF_ERROR(CheckKeys(t, {"input", "output"}, "\"lookup_table\""));
      if (!t.contains("input") || !t["input"].is_string()) return Err("\"lookup_table\" needs \"input\": \"$var\"");
      std::map<std::string, int> none;
      QRT_ASSIGN_OR_RETURN(PatternRef in, ParseReplaceRef(t["input"], p, none, "\"lookup_table\""));
      if (in.kind != PatternRef::Kind::kVar) return Err("\"lookup_table\": \"input\" must be a variable");
      if (t.contains("output") && t["output"] != out.id) {
        return Err("\"lookup_table\": \"output\" must be the match's output '", out.id, "'");
      }
      p.kind = UserPattern::Kind::kLookupTable;
      p.table_input = in.index;
      return Status::Ok();
    }
    p.kind = UserPattern::Kind::kNodes;
    std::map<std::string, int> rids;
    if (r.contains("op")) {
      if (r.contains("output")) return Err("\"replace\": \"output\" goes with \"nodes\"");
      if (!r["op"].is_object()) return Err("\"replace\": \"op\" must be an object");
      if (r["op"].contains("id")) return Err("\"replace\": \"op\" has no id");
      QRT_RETURN_IF_ERROR(ParseReplaceNode(r["op"], p, rids, "op"));
      p.replace_output.kind = PatternRef::Kind::kNode;
      p.replace_output.index = 0;
      p.replace_output.text = "op";
      return Status::Ok();
    }
    if (!r["nodes"].is_array() || r["nodes"].empty()) return Err("\"replace\": \"nodes\" must be a non-empty array");
    if (r["nodes"].size() > kMaxMatchNodes) return Err("a replacement has at most ", kMaxMatchNodes, " nodes");
    for (const json& n : r["nodes"]) {
      if (!n.is_object()) return Err("each replacement node is an object");
      QRT_RETURN_IF_ERROR(CheckId(n, "a replacement node"));
      const std::string id = n["id"].get<std::string>();
      if (rids.count(id)) return Err("replacement node id '", id, "' is used twice");
      QRT_RETURN_IF_ERROR(ParseReplaceNode(n, p, rids, id));
    }
    if (r.contains("output")) {
      QRT_ASSIGN_OR_RETURN(p.replace_output, ParseReplaceRef(r["output"], p, rids, "\"replace\": \"output\""));
      if (p.replace_output.kind != PatternRef::Kind::kNode && p.replace_output.kind != PatternRef::Kind::kVar) {
        return Err("\"replace\": \"output\" is a replacement node or a variable");
      }
      if (p.replace_output.match_node) return Err("\"replace\": \"output\" cannot be a match node");
    } else {
      p.replace_output.kind = PatternRef::Kind::kNode;
      p.replace_output.index = int(p.replace.size()) - 1;
      p.replace_output.text = p.replace.back().id;
    }
    return Status::Ok();
  }

  // The dtypes a value may have, as far as the pattern says: tied to a variable's (`var`), or
  // one of `set` (empty: unknown).
  struct DtypeTerm {
    int var = -1;
    std::vector<DataType> set;
  };

  DtypeTerm VarTerm(const UserPattern& p, const PatternRef& r) const {
    DtypeTerm t;
    t.set = p.vars[size_t(r.index)].constraint.dtypes;
    if (!r.optional) t.var = r.index;
    return t;
  }

  // The output dtype of an op from its inputs' terms and literal attributes.
  template <class InputTerm, class FindAttr>
  DtypeTerm OpTerm(const OpDef* def, size_t num_inputs, InputTerm input, FindAttr attr) const {
    auto present = [&](size_t i) { return i < num_inputs; };
    if (def == &kQuantizeLinearOp) {
      if (present(2)) {
        DtypeTerm t = input(2);
        if (t.set.empty()) t.set = kQuantTypes;
        if (t.var < 0 && std::count(t.set.begin(), t.set.end(), DataType::kUInt8) == 0) {
          t.set.push_back(DataType::kUInt8);  // an optional zero point may be omitted
        }
        return t;
      }
      if (const AttrValue* a = attr("output_dtype")) {
        if (const int64_t* code = std::get_if<int64_t>(a)) {
          if (auto dt = DataTypeFromOnnx(int(*code))) return {-1, {*dt}};
        }
        return {};
      }
      return {-1, {DataType::kUInt8}};
    }
    if (def == &kDequantizeLinearOp) {
      DtypeTerm t = present(1) ? input(1) : DtypeTerm{};
      if (t.set.empty()) t.set = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16};
      return t;
    }
    if (def == &kLookupTableOp) return present(1) ? input(1) : DtypeTerm{};
    if (def == &kQuantizedMulOp || def == &kQuantizedAddOp) {
      if (const AttrValue* a = attr("output_dtype")) {
        if (const std::string* s = std::get_if<std::string>(a)) {
          if (auto dt = ParseDataType(*s)) return {-1, {*dt}};
        }
        return {};
      }
      if (!present(7)) return {-1, {DataType::kUInt8}};
      DtypeTerm t = input(7);
      if (t.set.empty()) t.set = {DataType::kUInt8, DataType::kInt8, DataType::kUInt16, DataType::kInt16};
      return t;
    }
    if (def == &kCastOp) {
      if (const AttrValue* a = attr("to")) {
        if (const int64_t* code = std::get_if<int64_t>(a)) {
          if (auto dt = DataTypeFromOnnx(int(*code))) return {-1, {*dt}};
        }
      }
      return {};
    }
    if (IsElementwiseRegionOp(def) && present(0)) return input(0);
    return {};
  }

  DtypeTerm MatchTerm(const UserPattern& p, const PatternRef& r, int depth = 0) const {
    if (depth > int(kMaxMatchNodes)) return {};
    if (r.kind == PatternRef::Kind::kVar) return VarTerm(p, r);
    if (r.kind != PatternRef::Kind::kNode || r.output != 0) return {};
    const MatchNodeSpec& n = p.nodes[size_t(r.index)];
    return OpTerm(
        n.def, n.inputs.size(), [&](size_t i) { return MatchTerm(p, n.inputs[i], depth + 1); },
        [&](const std::string& name) -> const AttrValue* {
          for (const auto& [k, v] : n.attrs) {
            if (k == name && v) return &*v;
          }
          return nullptr;
        });
  }

  DtypeTerm ReplaceTerm(const UserPattern& p, const PatternRef& r) const {
    if (r.kind == PatternRef::Kind::kVar) return VarTerm(p, r);
    if (r.kind == PatternRef::Kind::kConstant) return {-1, {p.constants[size_t(r.index)].dtype()}};
    if (r.kind != PatternRef::Kind::kNode || r.output != 0) return {};
    if (r.match_node) return MatchTerm(p, r);
    const ReplaceNodeSpec& n = p.replace[size_t(r.index)];
    return OpTerm(
        n.def, n.inputs.size(), [&](size_t i) { return ReplaceTerm(p, n.inputs[i]); },
        [&](const std::string& name) -> const AttrValue* {
          for (const ReplaceAttr& a : n.attrs) {
            if (a.name == name && a.literal) return &*a.literal;
          }
          return nullptr;
        });
  }

  static std::string SetText(const std::vector<DataType>& set) {
    std::string s;
    for (DataType t : set) s += (s.empty() ? "" : " or ") + std::string(DataTypeName(t));
    return s;
  }

  // The replacement's output cannot have the matched output's dtype: an error now.
  Status CheckDtypes(const UserPattern& p) const {
    PatternRef out;
    out.kind = PatternRef::Kind::kNode;
    out.index = p.output;
    const DtypeTerm m = MatchTerm(p, out);
    auto disjoint = [](const std::vector<DataType>& a, const std::vector<DataType>& b) {
      return !a.empty() && !b.empty() &&
             std::none_of(a.begin(), a.end(), [&](DataType t) { return std::count(b.begin(), b.end(), t) > 0; });
    };
    const std::vector<DataType> k8 = {DataType::kUInt8, DataType::kInt8};
    if (p.kind == UserPattern::Kind::kLookupTable) {
      if (disjoint(p.vars[size_t(p.table_input)].constraint.dtypes, k8)) {
        return Err("a lookup table's input is 8-bit, but $", p.vars[size_t(p.table_input)].name, " is ",
                   SetText(p.vars[size_t(p.table_input)].constraint.dtypes));
      }
      if (disjoint(m.set, k8)) return Err("a lookup table's output is 8-bit, but the match makes ", SetText(m.set));
      return Status::Ok();
    }
    const DtypeTerm r = ReplaceTerm(p, p.replace_output);
    if (m.var >= 0 && m.var == r.var) return Status::Ok();
    if (disjoint(m.set, r.set)) {
      return Err("the replacement makes ", SetText(r.set), " where the match makes ", SetText(m.set),
                 ": it would change the output's dtype");
    }
    return Status::Ok();
  }

  StatusOr<std::shared_ptr<UserPattern>> ParsePattern(const json& j, size_t index) {
    auto p = std::make_shared<UserPattern>();
    p->source = source_;
    where_ = StrCat(source_, ": pattern #", index + 1);
    if (!j.is_object()) return Err("a pattern is an object");
    if (j.contains("name") && j["name"].is_string()) {
      p->name = j["name"].get<std::string>();
      where_ = StrCat(source_, ": pattern '", p->name, "'");
    }
    QRT_RETURN_IF_ERROR(CheckKeys(j, {"name", "description", "match", "replace"}, "a pattern"));
    if (p->name.empty() || p->name.size() > 128 || !std::all_of(p->name.begin(), p->name.end(), [](char c) {
          return std::isalnum(uint8_t(c)) || c == '-' || c == '_' || c == '.';
        })) {
      return Err("\"name\" must be 1 to 128 letters, digits, '-', '_' or '.'");
    }
    for (const Pass& pass : AllPasses()) {
      if (pass.name == p->name) return Err("the name is a built-in pass's");
    }
    if (j.contains("description")) {
      if (!j["description"].is_string()) return Err("\"description\" must be a string");
      p->description = j["description"].get<std::string>();
    }
    if (!j.contains("match")) return Err("missing \"match\"");
    if (!j.contains("replace")) return Err("missing \"replace\"");
    QRT_RETURN_IF_ERROR(ParseMatch(j["match"], *p));
    QRT_RETURN_IF_ERROR(ParseReplace(j["replace"], *p));
    QRT_RETURN_IF_ERROR(CheckDtypes(*p));
    return p;
  }

  std::string source_;
  std::string where_;
};

}  // namespace

UserPatternSet::UserPatternSet(std::string source, PatternStage stage,
                               std::vector<std::shared_ptr<const UserPattern>> patterns)
    : source_(std::move(source)), stage_(stage), patterns_(std::move(patterns)) {}

const std::string& UserPatternSet::name(size_t i) const { return patterns_.at(i)->name; }
const std::string& UserPatternSet::description(size_t i) const { return patterns_.at(i)->description; }

StatusOr<std::shared_ptr<const UserPatternSet>> ParseUserPatterns(std::string_view json_text,
                                                                  const std::string& source) {
  return Parser(source.empty() ? "<patterns>" : source).ParseFile(json_text);
}

StatusOr<std::shared_ptr<const UserPatternSet>> LoadUserPatternFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path, ": cannot read the pattern file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return IoError(path, ": cannot read the pattern file");
  return ParseUserPatterns(ss.str(), path);
}

Status CheckUserPatternNames(const std::vector<std::shared_ptr<const UserPatternSet>>& sets) {
  std::map<std::string, std::string> seen;  // name -> source
  for (const auto& set : sets) {
    if (set == nullptr) continue;
    for (size_t i = 0; i < set->size(); ++i) {
      auto [it, added] = seen.emplace(set->name(i), set->source());
      if (!added) {
        return InvalidArgument(set->source(), ": pattern '", set->name(i), "': the name is also a pattern of ",
                               it->second);
      }
    }
  }
  return Status::Ok();
}

}  // namespace qrt
