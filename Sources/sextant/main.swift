print("sextant: under construction")
