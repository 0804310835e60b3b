print("service-bench: not written yet")
