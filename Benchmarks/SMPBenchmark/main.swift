print("smp-bench: under construction")
