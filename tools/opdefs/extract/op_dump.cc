// op_dump.cc -- dump every PIR op registered in the running Paddle process as JSON.
//
// Built by tools/opdefs/extract.py against the headers of the very wheel it is then loaded
// into (site-packages/paddle/include, -D_GLIBCXX_USE_CXX11_ABI=1, linked to
// paddle/base/libpaddle.so), and called through ctypes after `import paddle`:
//
//     int pirc_dump_ops(const char *path)   // 0 on success
//
// It registers the OneDNN operator dialect (import paddle does not), walks
// pir::IrContext::Instance()->registered_op_info_map() and writes, for every op, its
// dialect, its registered attribute names and -- when the op has an OpYamlInfoInterface --
// the op-info record of Paddle's op YAML (inputs, attributes, outputs, runtime info).
// The output is raw: turning it into opdefs-<release>.json (header defaults, accessors of
// ops without op info, key order) is the Python driver's job.

#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "paddle/fluid/pir/dialect/operator/interface/op_yaml_info.h"
#include "paddle/pir/include/core/dialect.h"
#include "paddle/pir/include/core/ir_context.h"
#include "paddle/pir/include/core/op_info.h"
#if __has_include("paddle/fluid/pir/dialect/operator/ir/op_onednn_dialect.h")
#include "paddle/fluid/pir/dialect/operator/ir/op_onednn_dialect.h"
#define PIRC_HAVE_ONEDNN_DIALECT 1
#endif

namespace {

std::string Quote(const std::string &text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

const char *Bool(bool value) { return value ? "true" : "false"; }

std::string StringList(const std::vector<std::string> &items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + Quote(items[i]);
  return out + "]";
}

std::string OpInfoJson(const OpInfoTuple &info) {
  const auto &inputs = std::get<0>(info);
  const auto &attributes = std::get<1>(info);
  const auto &outputs = std::get<2>(info);
  const auto &runtime = std::get<3>(info);
  std::string out = "{\"inputs\": [";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto &in = inputs[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + Quote(in.name) +
           ", \"type\": " + Quote(in.type_name) + ", \"optional\": " + Bool(in.optional) +
           ", \"no_need_buffer\": " + Bool(in.no_need_buffer) +
           ", \"mutable_attribute\": " + Bool(in.is_mutable_attribute) + "}";
  }
  out += "], \"attributes\": [";
  for (size_t i = 0; i < attributes.size(); ++i) {
    const auto &attr = attributes[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + Quote(attr.name) +
           ", \"type\": " + Quote(attr.type_name) + ", \"data_type\": " +
           Quote(attr.data_type) + "}";
  }
  out += "], \"outputs\": [";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto &res = outputs[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + Quote(res.name) +
           ", \"type\": " + Quote(res.type_name) + ", \"optional\": " + Bool(res.optional) +
           ", \"intermediate\": " + Bool(res.intermediate) + "}";
  }
  out += "], \"infer_meta\": " + Quote(runtime.infer_meta_func) +
         ", \"kernel\": " + Quote(runtime.kernel_func) + ", \"inplace\": [";
  for (size_t i = 0; i < runtime.inplace.size(); ++i) {
    out += std::string(i ? ", " : "") + "[" + Quote(runtime.inplace[i].first) + ", " +
           Quote(runtime.inplace[i].second) + "]";
  }
  return out + "]}";
}

}  // namespace

extern "C" int pirc_dump_ops(const char *path) {
  pir::IrContext *ctx = pir::IrContext::Instance();
#ifdef PIRC_HAVE_ONEDNN_DIALECT
  // import paddle registers pd_op, builtin, cf and pd_dist, but not onednn_op.
  ctx->GetOrRegisterDialect<paddle::dialect::OneDNNOperatorDialect>();
#endif

  // registered_op_info_map() is unordered; sort by name for a stable dump.
  std::map<std::string, pir::OpInfo> ops;
  for (const auto &entry : ctx->registered_op_info_map()) ops[entry.first] = entry.second;

  std::FILE *file = std::fopen(path, "w");
  if (!file) return 1;
  std::fputs("[\n", file);
  bool first = true;
  for (const auto &[name, info] : ops) {
    std::string record = "{\"name\": " + Quote(name) + ", \"dialect\": " +
                         Quote(info.dialect() ? info.dialect()->name() : "") +
                         ", \"registered_attributes\": " +
                         StringList(info.GetAttributesName()) + ", \"op_info\": ";
    auto *yaml_info = info.GetInterfaceImpl<paddle::dialect::OpYamlInfoInterface>();
    if (yaml_info == nullptr) {
      record += "null";
    } else {
      try {
        record += OpInfoJson(yaml_info->get_op_info_(name));
      } catch (const std::exception &error) {
        record += "{\"error\": " + Quote(error.what()) + "}";
      }
    }
    std::fputs(first ? "" : ",\n", file);
    std::fputs((record + "}").c_str(), file);
    first = false;
  }
  std::fputs("\n]\n", file);
  return std::fclose(file) == 0 ? 0 : 1;
}
