// Opens a database through the installed cutune, from C++17, stores one result, and asks for the best configuration.
#include "check.hpp"

int main(int argc, char** argv) { return run_consumer(argc, argv); }
