"""nn placeholder"""
