// bk_dimacs: Kolmogorov's C++ Boykov–Kolmogorov max-flow (Debian's
// libmaxflow-dev 3.0.5, Graph<double,double,double>) on a DIMACS max-flow
// file: the yardstick of psub/maxflow/BENCHMARKS.md. It is not part of the
// Go build and the project does not depend on it. Build and run with
// psub/maxflow/testdata/bk/compare, or by hand:
//
//   g++ -O2 -DNDEBUG -std=c++17 -I/usr/include/maxflow-3.0 bk_dimacs.cpp -o bk_dimacs -lmaxflow
//   ./bk_dimacs FILE                    read the file straight into the graph
//   ./bk_dimacs -repeat R FILE          build+solve R times from memory
//   ./bk_dimacs -rounds K -mode M FILE  the learner's pattern (M: rebuild, other, clear, dynamic)
//
// It mirrors "psub maxflow" flag for flag and prints the same JSON fields,
// so that psub/maxflow/testdata/bk/compare can set the two side by side:
//
//   - Default: the graph is made while the file is read, with the
//     conventions below and the arc count of the p line as the edge hint;
//     this is the least memory a BK driver needs, and peak_rss_bytes
//     (VmHWM) is the number compared.
//   - -repeat R: the file is parsed (untimed) into per-node terminal
//     capacities and an edge list, with Problem.Build's conventions: s and t
//     left out and the other nodes renumbered in order, arcs s->i and i->t
//     summed into the terminal capacities, an arc followed directly by its
//     reverse merged into one edge, arcs s->t added to the flow, arcs into s
//     or out of t dropped. Then "build" is new Graph(n, m), add_node(n),
//     add_tweights for every node and add_edge for every edge; "solve" is
//     maxflow(). The first build+solve of the process is reported as cold,
//     the minimum of the other R-1 as warm. Times are process CPU time
//     (CLOCK_PROCESS_CPUTIME_ID) and wall time.
//   - -rounds K: after a first solve, K rounds each draw new capacities
//     around the file's (the same splitmix64 draws as psub maxflow) and
//     solve again: "rebuild" makes a new graph each round ("other": with
//     the edges in reverse order every other round), "clear" rebuilds
//     it in the same storage (reset()), "dynamic" changes
//     capacities in place (add_tweights by the difference, set_rcap on the
//     residuals with Kohli–Torr's reparameterisation when a residual would go
//     negative, mark_node on the ends) and calls maxflow(true).
#include <maxflow.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using maxflow::Graph_DDD;

static double cpuNow() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double wallNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long peakRSS() {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, nullptr, 10);
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

[[noreturn]] static void die(const char* file, long line, const char* msg) {
  fprintf(stderr, "%s:%ld: %s\n", file, line, msg);
  exit(1);
}

// Edge is one add_edge call.
struct Edge {
  int i, j;
  double cap, rev;
};

// Sink receives the graph-building calls of a DIMACS file in order.
struct Sink {
  virtual void header(int n, long m) = 0;
  virtual void terminal(int i, double src, double snk) = 0;
  virtual void edge(int i, int j, double cap, double rev) = 0;
  virtual void constant(double c) = 0;
  virtual ~Sink() {}
};

// readDIMACS parses file and feeds sink. The n lines must come before the
// arcs (as every file written by psub/maxflow's Write has them).
static void readDIMACS(const char* file, Sink& sink) {
  FILE* f = fopen(file, "r");
  if (!f) {
    fprintf(stderr, "%s: %s\n", file, strerror(errno));
    exit(1);
  }
  static char buf[1 << 16];
  long line = 0, n = -1, m = 0, s = -1, t = -1;
  bool pending = false;
  long pu = 0, pv = 0;
  double pc = 0;
  auto idx = [&](long v) { return (int)(v - (v > s) - (v > t)); };
  auto flush = [&]() {
    if (pending) sink.edge(idx(pu), idx(pv), pc, 0);
    pending = false;
  };
  while (fgets(buf, sizeof buf, f)) {
    line++;
    char* p = buf;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == 'c' || *p == '\n' || *p == '\r' || *p == 0) continue;
    char kind = *p++;
    if (kind == 'p') {
      char word[16];
      if (sscanf(p, "%15s %ld %ld", word, &n, &m) != 3 || strcmp(word, "max") != 0 || n < 2)
        die(file, line, "bad p line");
      sink.header((int)(n - 2), m);
    } else if (kind == 'n') {
      long v;
      char w;
      if (sscanf(p, "%ld %c", &v, &w) != 2) die(file, line, "bad n line");
      if (w == 's') s = v - 1; else if (w == 't') t = v - 1; else die(file, line, "bad n line");
    } else if (kind == 'a') {
      if (s < 0 || t < 0) die(file, line, "arc before the n lines of s and t");
      char* e;
      long u = strtol(p, &e, 10) - 1;
      long v = strtol(e, &e, 10) - 1;
      double c = strtod(e, &e);
      if (u < 0 || u >= n || v < 0 || v >= n || u == v) die(file, line, "bad arc");
      if (pending && u == pv && v == pu) {
        sink.edge(idx(pu), idx(pv), pc, c);
        pending = false;
        continue;
      }
      flush();
      if (u == s && v == t) sink.constant(c);
      else if (v == s || u == t) {
      } else if (u == s) sink.terminal(idx(v), c, 0);
      else if (v == t) sink.terminal(idx(u), 0, c);
      else {
        pending = true;
        pu = u, pv = v, pc = c;
      }
    } else {
      die(file, line, "unknown line type");
    }
  }
  flush();
  fclose(f);
  if (n < 0 || s < 0 || t < 0) die(file, line, "no p line, source or sink");
}

// Instance is a parsed file: terminal capacities per node and edges.
struct Instance : Sink {
  int n = 0;
  long m = 0;
  std::vector<double> src, snk;
  std::vector<Edge> edges;
  double konst = 0;
  void header(int nn, long mm) override {
    n = nn, m = mm;
    src.assign(n, 0), snk.assign(n, 0);
  }
  void terminal(int i, double a, double b) override { src[i] += a, snk[i] += b; }
  void edge(int i, int j, double c, double r) override { edges.push_back({i, j, c, r}); }
  void constant(double c) override { konst += c; }
};

// Streamer builds the graph while the file is read.
struct Streamer : Sink {
  Graph_DDD* g = nullptr;
  double konst = 0;
  void header(int n, long m) override {
    g = new Graph_DDD(n, (int)std::min<long>(m, 1L << 30));
    g->add_node(n);
  }
  void terminal(int i, double a, double b) override { g->add_tweights(i, a, b); }
  void edge(int i, int j, double c, double r) override { g->add_edge(i, j, c, r); }
  void constant(double c) override { konst += c; }
};

// fill adds the nodes, terminal capacities and edges to an empty graph.
static void fill(Graph_DDD* g, const Instance& in, const std::vector<double>& src,
                 const std::vector<double>& snk, const std::vector<Edge>& edges) {
  g->add_node(in.n);
  for (int i = 0; i < in.n; i++) g->add_tweights(i, src[i], snk[i]);
  for (const Edge& e : edges) g->add_edge(e.i, e.j, e.cap, e.rev);
}

static Graph_DDD* build(const Instance& in, const std::vector<double>& src,
                        const std::vector<double>& snk, const std::vector<Edge>& edges) {
  Graph_DDD* g = new Graph_DDD(in.n, (int)edges.size());
  fill(g, in, src, snk, edges);
  return g;
}

// splitmix64, as in psub maxflow -rounds.
struct Rand {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * 0x1.0p-53; }
};

// perturb draws round k's capacities: node i's difference d = src-snk
// becomes d·U[0.9, 1.1] + U[-1, 1]·noise, noise a tenth of the mean |d|
// (so some nodes change side, and an instance without terminal capacities
// keeps none), each edge capacity is scaled by U[0.9, 1.1].
static void perturb(const Instance& in, double noise, uint64_t k, std::vector<double>& src,
                    std::vector<double>& snk, std::vector<Edge>& edges) {
  Rand r{k};
  for (int i = 0; i < in.n; i++) {
    double u1 = r.uniform();
    double u2 = r.uniform();
    double d = (in.src[i] - in.snk[i]) * (0.9 + 0.2 * u1) + (2 * u2 - 1) * noise;
    src[i] = d > 0 ? d : 0;
    snk[i] = d < 0 ? -d : 0;
  }
  for (size_t e = 0; e < in.edges.size(); e++) {
    edges[e] = in.edges[e];
    edges[e].cap *= 0.9 + 0.2 * r.uniform();
    edges[e].rev *= 0.9 + 0.2 * r.uniform();
  }
}

int main(int argc, char** argv) {
  int repeat = 0, rounds = 0;
  std::string mode = "dynamic";
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; a++) {
    std::string f = argv[a];
    if (f == "-repeat" && a + 1 < argc) repeat = atoi(argv[++a]);
    else if (f == "-rounds" && a + 1 < argc) rounds = atoi(argv[++a]);
    else if (f == "-mode" && a + 1 < argc) mode = argv[++a];
    else break;
  }
  if (a + 1 != argc || repeat < 0 || rounds < 0 || (repeat > 0 && rounds > 0) ||
      (mode != "dynamic" && mode != "rebuild" && mode != "other" && mode != "clear")) {
    fprintf(stderr, "usage: bk_dimacs [-repeat R | -rounds K [-mode rebuild|other|clear|dynamic]] FILE\n");
    return 2;
  }
  const char* file = argv[a];

  if (repeat == 0 && rounds == 0) {
    Streamer st;
    double c0 = cpuNow(), w0 = wallNow();
    readDIMACS(file, st);
    double c1 = cpuNow(), w1 = wallNow();
    double flow = st.g->maxflow() + st.konst;
    double c2 = cpuNow(), w2 = wallNow();
    printf("{\"file\":\"%s\",\"flow\":%.17g,\"read_cpu_seconds\":%.9f,\"read_seconds\":%.9f,"
           "\"cpu_seconds\":%.9f,\"seconds\":%.9f,\"peak_rss_bytes\":%ld}\n",
           file, flow, c1 - c0, w1 - w0, c2 - c1, w2 - w1, peakRSS());
    return 0;
  }

  Instance in;
  readDIMACS(file, in);

  if (rounds > 0) {
    std::vector<double> src(in.n), snk(in.n);
    std::vector<Edge> edges(in.edges.size());
    double noise = 0;
    for (int i = 0; i < in.n; i++) noise += std::fabs(in.src[i] - in.snk[i]);
    if (in.n > 0) noise = 0.1 * noise / in.n;
    // The first build and solve of the process are the cold ones.
    double k0 = cpuNow();
    Graph_DDD* g = build(in, in.src, in.snk, in.edges);
    double k1 = cpuNow();
    double flow0 = g->maxflow() + in.konst;
    double k2 = cpuNow();
    double sum = 0, last = 0;
    double c0 = cpuNow(), w0 = wallNow();
    double drawCPU = 0, buildCPU = 0;
    for (int k = 1; k <= rounds; k++) {
      double d0 = cpuNow();
      perturb(in, noise, k, src, snk, edges);
      if (mode == "other" && k % 2 == 1) std::reverse(edges.begin(), edges.end());
      drawCPU += cpuNow() - d0;
      if (mode == "rebuild" || mode == "other") {
        double b0 = cpuNow();
        delete g;
        g = build(in, src, snk, edges);
        buildCPU += cpuNow() - b0;
        last = g->maxflow();
      } else if (mode == "clear") {
        double b0 = cpuNow();
        g->reset();
        fill(g, in, src, snk, edges);
        buildCPU += cpuNow() - b0;
        last = g->maxflow();
      } else {
        // old capacities are those of the previous round (round 0: the file's)
        static std::vector<double> os, ot;
        static std::vector<Edge> oe;
        if (k == 1) os = in.src, ot = in.snk, oe = in.edges;
        for (int i = 0; i < in.n; i++) {
          if (src[i] != os[i] || snk[i] != ot[i]) {
            g->add_tweights(i, src[i] - os[i], snk[i] - ot[i]);
            g->mark_node(i);
          }
        }
        Graph_DDD::arc_id arcs = g->get_first_arc();
        for (size_t e = 0; e < edges.size(); e++) {
          const Edge &n = edges[e], &o = oe[e];
          if (n.cap == o.cap && n.rev == o.rev) continue;
          Graph_DDD::arc_id fa = arcs + 2 * e, ra = arcs + 2 * e + 1;
          double x = g->get_rcap(fa) + (n.cap - o.cap);
          double y = g->get_rcap(ra) + (n.rev - o.rev);
          if (x < 0) {
            g->set_rcap(fa, 0), g->set_rcap(ra, n.cap + n.rev);
            g->add_tweights(n.i, 0, x), g->add_tweights(n.j, 0, -x);
          } else if (y < 0) {
            g->set_rcap(fa, n.cap + n.rev), g->set_rcap(ra, 0);
            g->add_tweights(n.j, 0, y), g->add_tweights(n.i, 0, -y);
          } else {
            g->set_rcap(fa, x), g->set_rcap(ra, y);
          }
          g->mark_node(n.i), g->mark_node(n.j);
        }
        os = src, ot = snk, oe = edges;
        last = g->maxflow(true);
      }
      sum += last;
    }
    double c1 = cpuNow(), w1 = wallNow();
    printf("{\"file\":\"%s\",\"mode\":\"%s\",\"rounds\":%d,\"cold_flow\":%.17g,\"flow\":%.17g,"
           "\"flow_sum\":%.17g,\"cold_build_cpu_seconds\":%.9f,\"cold_cpu_seconds\":%.9f,"
           "\"round_cpu_seconds\":%.9f,\"round_build_cpu_seconds\":%.9f,\"round_seconds\":%.9f,"
           "\"peak_rss_bytes\":%ld}\n",
           file, mode.c_str(), rounds, flow0, last + in.konst, sum + rounds * in.konst, k1 - k0, k2 - k1,
           (c1 - c0 - drawCPU) / rounds, buildCPU / rounds, (w1 - w0) / rounds, peakRSS());
    delete g;
    return 0;
  }

  double flow = 0;
  double coldB = 0, coldS = 0, coldBW = 0, coldSW = 0;
  double warmB = INFINITY, warmS = INFINITY, warmBW = INFINITY, warmSW = INFINITY;
  for (int r = 0; r < repeat; r++) {
    double c0 = cpuNow(), w0 = wallNow();
    Graph_DDD* g = build(in, in.src, in.snk, in.edges);
    double c1 = cpuNow(), w1 = wallNow();
    flow = g->maxflow() + in.konst;
    double c2 = cpuNow(), w2 = wallNow();
    delete g;
    if (r == 0) {
      coldB = c1 - c0, coldS = c2 - c1, coldBW = w1 - w0, coldSW = w2 - w1;
    } else {
      warmB = std::min(warmB, c1 - c0), warmS = std::min(warmS, c2 - c1);
      warmBW = std::min(warmBW, w1 - w0), warmSW = std::min(warmSW, w2 - w1);
    }
  }
  printf("{\"file\":\"%s\",\"nodes\":%d,\"edges\":%zu,\"flow\":%.17g,\"repeat\":%d,"
         "\"cold_build_cpu_seconds\":%.9f,\"cold_cpu_seconds\":%.9f,"
         "\"cold_build_seconds\":%.9f,\"cold_seconds\":%.9f",
         file, in.n, in.edges.size(), flow, repeat, coldB, coldS, coldBW, coldSW);
  if (repeat > 1)
    printf(",\"build_cpu_seconds\":%.9f,\"cpu_seconds\":%.9f,\"build_seconds\":%.9f,\"seconds\":%.9f",
           warmB, warmS, warmBW, warmSW);
  printf(",\"peak_rss_bytes\":%ld}\n", peakRSS());
  return 0;
}
