// sdk/flags.h: torch's command-line flags without gflags (c10/util/Flags.h): FLAGS_name
// variables defined with SDK_DEFINE_int/int32/int64/double/bool/string(name, default, help)
// (C10_DEFINE_*), declared elsewhere with SDK_DECLARE_*, and set from argv by
// ParseCommandLineFlags, with SetUsageMessage / UsageMessage for the program's --help.
//
//   SDK_DEFINE_string(model, "", "Path to the model");
//   int main(int argc, char* argv[]) {
//     sdk::SetUsageMessage("./prog --model PATH files...");
//     if (!sdk::ParseCommandLineFlags(&argc, &argv)) return 1;  // argv keeps the other args
//   }
//
// As torch's: `--name=value` or `--name value` (a bool flag too: `--use_gpu true`); an
// argument not starting with `--` is kept in argv for the program; an argument containing
// `--help` prints the usage message and every flag's help, then exits the process with 0. An
// unknown flag, a missing value or a bool that is not true/false/1/0 (any case of
// True/TRUE) stops the parse: the reasons go to stderr and the call returns false; numbers
// are read as atoi/atoll/atof read them. The flags live in the program (or the library) that
// defines them: header-only, one registry per binary.
#ifndef SDK_FLAGS_H_
#define SDK_FLAGS_H_

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "sdk/registry.h"

namespace sdk {

/*! \brief Sets one flag from its text (torch's C10FlagParser): made per `--name value`. */
class C10FlagParser {
 public:
  virtual ~C10FlagParser() = default;
  bool success() const { return success_; }

 protected:
  template <typename T>
  bool Parse(const std::string& content, T* value);
  bool success_ = false;
};

/*! \brief The registry of the program's flags, by name (torch's C10FlagsRegistry). */
inline Registry<std::string, std::unique_ptr<C10FlagParser>, const std::string&>*
C10FlagsRegistry() {
  static auto* registry =
      new Registry<std::string, std::unique_ptr<C10FlagParser>, const std::string&>();
  return registry;
}
using RegistererC10FlagsRegistry =
    Registerer<std::string, std::unique_ptr<C10FlagParser>, const std::string&>;

namespace detail {

struct FlagsState {
  std::string usage = "(Usage message not set.)";
  bool parsed = false;
  std::stringstream notes;  // why a parse failed, printed when it does
};
inline FlagsState& flags_state() {
  static FlagsState state;
  return state;
}

}  // namespace detail

template <>
inline bool C10FlagParser::Parse<std::string>(const std::string& content, std::string* value) {
  *value = content;
  return true;
}
template <>
inline bool C10FlagParser::Parse<int>(const std::string& content, int* value) {
  *value = std::atoi(content.c_str());
  return true;
}
template <>
inline bool C10FlagParser::Parse<int64_t>(const std::string& content, int64_t* value) {
  *value = static_cast<int64_t>(std::atoll(content.c_str()));
  return true;
}
template <>
inline bool C10FlagParser::Parse<double>(const std::string& content, double* value) {
  *value = std::atof(content.c_str());
  return true;
}
template <>
inline bool C10FlagParser::Parse<bool>(const std::string& content, bool* value) {
  if (content == "false" || content == "False" || content == "FALSE" || content == "0") {
    *value = false;
    return true;
  }
  if (content == "true" || content == "True" || content == "TRUE" || content == "1") {
    *value = true;
    return true;
  }
  detail::flags_state().notes << "C10 flag error: Cannot convert argument to bool: " << content
                              << "\nNote that if you are passing in a bool flag, you need to "
                                 "explicitly specify it, like --arg=True or --arg True.\n";
  return false;
}

/*! \brief The text --help prints before the flags. */
inline void SetUsageMessage(const std::string& str) { detail::flags_state().usage = str; }
inline const char* UsageMessage() { return detail::flags_state().usage.c_str(); }
inline bool CommandLineFlagsHasBeenParsed() { return detail::flags_state().parsed; }

/*! \brief Set the flags named in argv[1:] and keep the other arguments in argv (argc counts
 *  them, with argv[0]); false, with the reasons on stderr, when a flag is wrong. */
inline bool ParseCommandLineFlags(int* pargc, char*** pargv) {
  if (*pargc == 0) return true;
  char** argv = *pargv;
  auto& notes = detail::flags_state().notes;
  bool success = true;
  int write_head = 1;
  for (int i = 1; i < *pargc; ++i) {
    const std::string arg(argv[i]);
    if (arg.find("--help") != std::string::npos) {
      std::cout << UsageMessage() << "\nArguments: \n";
      for (const auto& help : C10FlagsRegistry()->HelpMessage()) {
        std::cout << "    " << help.first << ": " << help.second << "\n";
      }
      std::exit(0);
    }
    if (arg.size() < 2 || arg[0] != '-' || arg[1] != '-') {
      argv[write_head++] = argv[i];  // the program's own argument
      continue;
    }
    std::string key, value;
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      key = arg.substr(2);
      if (++i == *pargc) {
        notes << "C10 flag: reached the last commandline argument, but I am expecting a value "
                 "for "
              << arg << "\n";
        success = false;
        break;
      }
      value = argv[i];
    } else {
      key = arg.substr(2, eq - 2);
      value = arg.substr(eq + 1);
    }
    if (!C10FlagsRegistry()->Has(key)) {
      notes << "C10 flag: unrecognized commandline argument: " << arg << "\n";
      success = false;
      break;
    }
    if (!C10FlagsRegistry()->Create(key, value)->success()) {
      notes << "C10 flag: illegal argument: " << arg << "\n";
      success = false;
      break;
    }
  }
  *pargc = write_head;
  detail::flags_state().parsed = true;
  if (!success) std::cerr << notes.str();
  notes.str(std::string());
  return success;
}

}  // namespace sdk

/*! \brief Define FLAGS_name of `type` with its default and help (C10_DEFINE_typed_var). */
#define SDK_DEFINE_typed_var(type, name, default_value, help_str)              \
  type FLAGS_##name = default_value;                                           \
  namespace sdk {                                                              \
  namespace {                                                                  \
  class C10FlagParser_##name : public ::sdk::C10FlagParser {                   \
   public:                                                                     \
    explicit C10FlagParser_##name(const std::string& content) {                \
      success_ = ::sdk::C10FlagParser::Parse<type>(content, &FLAGS_##name);    \
    }                                                                          \
  };                                                                           \
  ::sdk::RegistererC10FlagsRegistry g_C10FlagsRegistry_##name(                 \
      #name, ::sdk::C10FlagsRegistry(),                                        \
      ::sdk::RegistererC10FlagsRegistry::DefaultCreator<C10FlagParser_##name>, \
      "(" #type ", default " #default_value ") " help_str);                    \
  }                                                                            \
  }
#define SDK_DEFINE_int(name, default_value, help_str) \
  SDK_DEFINE_typed_var(int, name, default_value, help_str)
#define SDK_DEFINE_int32(name, default_value, help_str) \
  SDK_DEFINE_typed_var(int32_t, name, default_value, help_str)
#define SDK_DEFINE_int64(name, default_value, help_str) \
  SDK_DEFINE_typed_var(int64_t, name, default_value, help_str)
#define SDK_DEFINE_double(name, default_value, help_str) \
  SDK_DEFINE_typed_var(double, name, default_value, help_str)
#define SDK_DEFINE_bool(name, default_value, help_str) \
  SDK_DEFINE_typed_var(bool, name, default_value, help_str)
#define SDK_DEFINE_string(name, default_value, help_str) \
  SDK_DEFINE_typed_var(std::string, name, default_value, help_str)

/*! \brief Declare a flag another file defines (C10_DECLARE_*). */
#define SDK_DECLARE_typed_var(type, name) extern type FLAGS_##name
#define SDK_DECLARE_int(name) SDK_DECLARE_typed_var(int, name)
#define SDK_DECLARE_int32(name) SDK_DECLARE_typed_var(int32_t, name)
#define SDK_DECLARE_int64(name) SDK_DECLARE_typed_var(int64_t, name)
#define SDK_DECLARE_double(name) SDK_DECLARE_typed_var(double, name)
#define SDK_DECLARE_bool(name) SDK_DECLARE_typed_var(bool, name)
#define SDK_DECLARE_string(name) SDK_DECLARE_typed_var(std::string, name)

#endif  // SDK_FLAGS_H_
