# cmake -DIN=README.md -DOUT=readme_example.cpp -P extract_cpp_block.cmake
# Writes the body of the one ```cpp block of IN to OUT, so the README's example is compiled and
# run by the tests exactly as a reader copies it. Fails when IN has no such block or several
# (the test would otherwise check a block the reader might not be looking at). string(FIND),
# not a regex match: C++ text has semicolons, which would split a CMake list.
file(READ "${IN}" text)
set(open "```cpp\n")
string(FIND "${text}" "${open}" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${IN}: no ```cpp block found")
endif()
string(LENGTH "${open}" open_len)
math(EXPR start "${start} + ${open_len}")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${IN}: the ```cpp block is not closed")
endif()
string(SUBSTRING "${rest}" 0 ${end} block)
string(SUBSTRING "${rest}" ${end} -1 after)
string(FIND "${after}" "${open}" second)
if(NOT second EQUAL -1)
  message(FATAL_ERROR "${IN}: more than one ```cpp block; the test compiles exactly one")
endif()
set(banner "// Generated from ${IN} by tests/tools/extract_cpp_block.cmake; edit the README, not this file.\n")
file(WRITE "${OUT}" "${banner}${block}")
