"""reader"""
