"""Developer tools: static-asset fetching, browser set-up and benchmarks."""
