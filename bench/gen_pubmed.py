#!/usr/bin/env python3
"""Writes N synthetic PubMed EFetch records (PubmedArticleSet XML) for the parser benchmark.

Usage: gen_pubmed.py OUT.xml N
The DOCTYPE names pubmed_190101.dtd, which Biopython ships, so Entrez.read
validates offline. Records have structured abstracts, authors, MeSH terms,
publication types and DOIs, as real EFetch answers do.
"""
import random
import sys

out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
words = ("gene family expression flowering transcription factor promoter domain phylogeny plant litchi rice "
         "arabidopsis tomato stress drought hormone auxin regulation motif binding development seed fruit").split()
mesh = ["Arabidopsis", "Gene Expression Regulation, Plant", "Plant Proteins", "Transcription Factors", "Phylogeny",
        "Multigene Family", "Flowers", "MicroRNAs", "Oryza", "Litchi"]
sections = ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]


def sentence(k):
    return " ".join(rng.choice(words) for _ in range(k)).capitalize() + "."


with open(out, "w") as f:
    f.write('<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN" '
            '"https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_190101.dtd">\n<PubmedArticleSet>\n')
    for i in range(n):
        pmid = 30000000 + i
        abstract = "".join(f'<AbstractText Label="{s}" NlmCategory="{s}">{sentence(25)} {sentence(20)}</AbstractText>'
                           for s in sections)
        authors = "".join(f'<Author ValidYN="Y"><LastName>{rng.choice(["Chen","Li","Wang","Smith","Garcia","Kumar"])}</LastName>'
                          f'<ForeName>{rng.choice(["Wei","Na","Ana","John","Priya"])}</ForeName><Initials>W</Initials></Author>'
                          for _ in range(rng.randint(2, 8)))
        meshes = "".join(f'<MeshHeading><DescriptorName UI="D{rng.randint(10000, 99999):06d}" MajorTopicYN="N">{m}</DescriptorName></MeshHeading>'
                         for m in rng.sample(mesh, 4))
        f.write(f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{pmid}</PMID>'
                f'<Article PubModel="Print"><Journal><ISSN IssnType="Electronic">1532-2548</ISSN><JournalIssue CitedMedium="Internet">'
                f'<Volume>{rng.randint(1, 200)}</Volume><PubDate><Year>{rng.randint(1995, 2024)}</Year><Month>Mar</Month></PubDate>'
                f'</JournalIssue><Title>Plant physiology</Title></Journal><ArticleTitle>{sentence(12)}</ArticleTitle>'
                f'<Abstract>{abstract}</Abstract><AuthorList CompleteYN="Y">{authors}</AuthorList><Language>eng</Language>'
                f'<PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType></PublicationTypeList>'
                f'</Article><MeshHeadingList>{meshes}</MeshHeadingList></MedlineCitation>'
                f'<PubmedData><ArticleIdList><ArticleId IdType="pubmed">{pmid}</ArticleId>'
                f'<ArticleId IdType="doi">10.1104/pp.{pmid}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>\n')
    f.write("</PubmedArticleSet>\n")
