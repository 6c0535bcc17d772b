"""narration"""
