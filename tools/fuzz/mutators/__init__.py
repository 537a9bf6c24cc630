"""Mutators: each takes a random.Random and an input (text or parsed tree) and returns a new one.

chars.py works on any text; pir_text.py, json_tree.py and patch_yaml.py know their format's
structure; values.py holds the boundary values they all draw from.
"""
