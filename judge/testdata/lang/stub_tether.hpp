// A stand-in for the C++ solution host, for the judge's tests only: it
// serves calls of add(long long, long long) and nothing else, with just
// enough frame parsing for the test evaluator's frames.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

long long add(long long a, long long b);

int main() {
    std::ios::sync_with_stdio(false);
    std::cout << "{\"type\":\"ready\"}\n" << std::flush;
    std::string line;
    while (std::getline(std::cin, line)) {
        size_t i = line.find("\"id\":\"");
        size_t a = line.find("\"args\":[");
        if (i == std::string::npos || a == std::string::npos) continue;
        i += 6;
        std::string id = line.substr(i, line.find('"', i) - i);
        char *end;
        long long x = std::strtoll(line.c_str() + a + 8, &end, 10);
        long long y = std::strtoll(end + 1, nullptr, 10);
        long long v = add(x, y);
        std::cout << "{\"type\":\"result\",\"id\":\"" << id << "\",\"value\":" << v << "}\n" << std::flush;
    }
}
#define TETHER_EXPORT(f)
