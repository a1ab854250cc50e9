"""optim placeholder"""
